import Foundation
import NIOCore
import NIOHTTP1
import RpcTransport
import RpcTransportNIO
import Synchronization
import Testing
import RpcTesting

@Suite("HTTP batches")
struct HTTPBatchTests {
    static func url(_ server: TransportServer, path: String = "/rpc") -> String {
        "http://127.0.0.1:\(server.port ?? 0)\(path)"
    }

    @Test("A batch's messages reach the handler and its answer comes back in order")
    func roundTrip() async throws {
        try await EchoServer.run { server, observations in
            let client = try HTTPBatchClient(url: Self.url(server, path: "/rpc?session=1"))
            let messages: [TransportMessage] = [.text(#"["push",1]"#), .text("zwei"), .text("三")]
            #expect(try await client.exchange(messages) == messages)
            let request = try #require(observations.batches.first)
            #expect(request.path == "/rpc")
            #expect(request.uri == "/rpc?session=1")
            #expect(request.messages == messages)
            #expect(request.headers.first(name: "content-type") == "text/plain; charset=utf-8")
            await client.close()
        }
    }

    @Test("An empty batch is answered with an empty body")
    func emptyBatch() async throws {
        try await EchoServer.run { server, _ in
            let replies = try await withHTTPBatchClient(url: Self.url(server)) { client in
                try await client.exchange([])
            }
            #expect(replies.isEmpty)
            let raw = try await RawTCPClient.connect(port: server.port ?? 0)
            try await raw.write("POST /rpc HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\n\r\n")
            let head = try await raw.responseHead()
            #expect(head.hasPrefix("HTTP/1.1 200"))
            #expect(head.lowercased().contains("content-length: 0\r\n"))
            #expect(head.lowercased().contains("content-type: text/plain; charset=utf-8"))
            await raw.close()
        }
    }

    @Test("A trailing newline in a request body is tolerated and the answer has none")
    func trailingNewline() async throws {
        try await EchoServer.run { server, observations in
            let raw = try await RawTCPClient.connect(port: server.port ?? 0)
            try await raw.write("POST /rpc HTTP/1.1\r\nHost: localhost\r\nContent-Length: 4\r\n\r\na\nb\n")
            let bytes = try await raw.waitForBytes { bytes in
                guard let end = RawTCPClient.endOfHead(bytes) else { return false }
                return bytes.count >= end + 3
            }
            let end = try #require(RawTCPClient.endOfHead(bytes))
            #expect(Array(bytes[end...]) == Array("a\nb".utf8))
            #expect(observations.batches.first?.messages == [.text("a"), .text("b")])
            await raw.close()
        }
    }

    @Test("A batch body that stalls before its end is answered 408 at the request read timeout and the connection closed")
    func stalledBodyTimesOut() async throws {
        var configuration = EchoServer.configuration()
        configuration.requestReadTimeout = .milliseconds(300)
        try await EchoServer.run(configuration: configuration) { server, observations in
            let raw = try await RawTCPClient.connect(port: server.port ?? 0)
            try await raw.write("POST /rpc HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100\r\n\r\nonly part")
            #expect(try await raw.responseHead().hasPrefix("HTTP/1.1 408"))
            try await raw.waitUntilClosed()
            #expect(observations.batches.isEmpty)
        }
    }

    @Test("A request that expects 100-continue is told to continue and then answered")
    func expectContinue() async throws {
        try await EchoServer.run { server, _ in
            let raw = try await RawTCPClient.connect(port: server.port ?? 0)
            try await raw.write(
                "POST /rpc HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
            #expect(try await raw.responseHead().hasPrefix("HTTP/1.1 100"))
            try await raw.write("hello")
            let bytes = try await raw.waitForBytes { String(decoding: $0, as: UTF8.self).hasSuffix("hello") }
            #expect(String(decoding: bytes, as: UTF8.self).contains("HTTP/1.1 200"))
            await raw.close()
        }
    }

    @Test("Methods other than POST, a GET without an upgrade included, are answered with 405")
    func methodAndPathErrors() async throws {
        try await EchoServer.run { server, _ in
            let put = try await RawTCPClient.connect(port: server.port ?? 0)
            try await put.write("PUT /rpc HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\n\r\n")
            let putHead = try await put.responseHead()
            #expect(putHead.hasPrefix("HTTP/1.1 405"))
            #expect(putHead.lowercased().contains("allow: get, post"))
            await put.close()

            let get = try await RawTCPClient.connect(port: server.port ?? 0)
            try await get.write("GET /rpc HTTP/1.1\r\nHost: localhost\r\n\r\n")
            #expect(try await get.responseHead().hasPrefix("HTTP/1.1 405"))
            await get.close()
        }
    }

    @Test("A body above the limit is answered with 413 and the client reports requestTooLarge")
    func bodyTooLarge() async throws {
        var configuration = EchoServer.configuration()
        configuration.maxBatchBodySize = 1024
        try await EchoServer.run(configuration: configuration) { server, observations in
            let client = try HTTPBatchClient(url: Self.url(server))
            let error = await #expect(throws: TransportError.self) {
                _ = try await client.exchange([.text(String(repeating: "x", count: 4096))])
            }
            #expect(error?.code == .requestTooLarge)
            #expect(error?.httpStatus == 413)
            #expect(observations.batches.isEmpty)
            #expect(try await client.exchange([.text("small")]) == [.text("small")])
            await client.close()
        }
    }

    @Test("A declared length above the limit is refused with 413 before the body is sent")
    func declaredLengthTooLarge() async throws {
        var configuration = EchoServer.configuration()
        configuration.maxBatchBodySize = 1024
        try await EchoServer.run(configuration: configuration) { server, _ in
            let raw = try await RawTCPClient.connect(port: server.port ?? 0)
            try await raw.write("POST /rpc HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100000000\r\n\r\n")
            let head = try await raw.responseHead(within: .seconds(5))
            #expect(head.hasPrefix("HTTP/1.1 413"))
            #expect(head.lowercased().contains("connection: close"))
            await raw.close()
        }
    }

    @Test("Keep-alive connections are reused across batches")
    func keepAliveReuse() async throws {
        try await EchoServer.run { server, observations in
            let client = try HTTPBatchClient(url: Self.url(server))
            for index in 0 ..< 5 {
                #expect(try await client.exchange([.text("\(index)")]) == [.text("\(index)")])
            }
            let ports = Set(observations.batches.compactMap { $0.remoteAddress?.port })
            #expect(observations.batches.count == 5)
            #expect(ports.count == 1)
            await client.close()
        }
    }

    @Test("A failing batch handler is answered with 500")
    func handlerError() async throws {
        try await EchoServer.run { server, _ in
            let client = try HTTPBatchClient(url: Self.url(server))
            let error = await #expect(throws: TransportError.self) {
                _ = try await client.exchange([.text("fail")])
            }
            #expect(error?.code == .httpStatus)
            #expect(error?.httpStatus == 500)
            #expect(try await client.exchange([.text("fine")]) == [.text("fine")])
            await client.close()
        }
    }

    @Test("A batch handler refuses a request with a status of its choosing and its message")
    func handlerRefusal() async throws {
        try await withTransportServer(
            configuration: EchoServer.configuration(),
            onBatch: { request in
                guard request.headers.first(name: "authorization") == "Bearer right" else {
                    throw TransportError(code: .httpStatus, message: "who are you?", httpStatus: 401)
                }
                return request.messages
            }
        ) { server in
            let refused = try HTTPBatchClient(url: Self.url(server))
            let error = await #expect(throws: TransportError.self) {
                _ = try await refused.exchange([.text("x")])
            }
            #expect(error?.httpStatus == 401)
            #expect(error?.message.contains("who are you?") == true)
            await refused.close()
            var configuration = HTTPBatchClientConfiguration()
            configuration.headers.add(name: "Authorization", value: "Bearer right")
            let admitted = try HTTPBatchClient(url: Self.url(server), configuration: configuration)
            #expect(try await admitted.exchange([.text("x")]) == [.text("x")])
            await admitted.close()
        }
    }

    @Test("A server without a batch handler answers POST with 404")
    func noBatchHandler() async throws {
        try await withTransportServer(
            configuration: EchoServer.configuration(),
            onConnection: { transport, _ in _ = await transport.waitUntilClosed() }
        ) { server in
            let client = try HTTPBatchClient(url: Self.url(server))
            let error = await #expect(throws: TransportError.self) {
                _ = try await client.exchange([.text("x")])
            }
            #expect(error?.httpStatus == 404)
            await client.close()
        }
    }

    @Test("Binary messages and messages with newlines cannot travel in a batch")
    func unsupportedMessages() async throws {
        let client = try HTTPBatchClient(url: "http://127.0.0.1:9/rpc")
        for message in [TransportMessage.binary([1]), .text("a\nb")] {
            let error = await #expect(throws: TransportError.self) {
                _ = try await client.exchange([message])
            }
            #expect(error?.code == .protocolViolation)
        }
        await client.close()
    }

    @Test("URLs other than http and https are invalid targets", arguments: ["ws://127.0.0.1/", "http://", "https://host:0/"])
    func invalidURLs(url: String) {
        let error = #expect(throws: TransportError.self) {
            _ = try HTTPBatchClient(url: url)
        }
        #expect(error?.code == .invalidTarget)
    }

    @Test("Batches travel over a Unix domain socket")
    func unixDomainSocket() async throws {
        let path = FileManager.default.temporaryDirectory.path + "/batch-\(UUID().uuidString.prefix(8)).sock"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try await EchoServer.run(configuration: EchoServer.configuration(address: .unixDomainSocket(path: path))) { _, _ in
            let client = try HTTPBatchClient(target: .unixDomainSocket(path: path), path: "/rpc")
            #expect(try await client.exchange([.text("over a socket")]) == [.text("over a socket")])
            await client.close()
        }
    }

    @Test("A batch in flight during a graceful shutdown still gets its answer")
    func batchDuringShutdown() async throws {
        let observations = ServerObservations()
        let listeningPort = Mutex<Int?>(nil)
        let reply = try await withThrowingTaskGroup(of: [TransportMessage].self) { group in
            try await withTransportServer(
                configuration: EchoServer.configuration(),
                onBatch: { request in
                    observations.batch(request)
                    // Answers only once the shutdown is under way, which the listener closing
                    // shows: the batch is in flight while the server shuts down.
                    try await waitUntil("the server to stop accepting connections", timeout: .seconds(20), every: .milliseconds(20)) {
                        guard let port = listeningPort.withLock({ $0 }) else { return false }
                        guard let probe = try? await RawTCPClient.connect(port: port) else { return true }
                        await probe.close()
                        return false
                    }
                    return request.messages
                }
            ) { server in
                listeningPort.withLock { $0 = server.port }
                let client = try HTTPBatchClient(url: Self.url(server))
                group.addTask {
                    try await client.exchange([.text("slow")])
                }
                try await waitUntil("the batch reaching the handler") { !observations.batches.isEmpty }
            }
            return try await group.next() ?? []
        }
        #expect(reply == [.text("slow")])
    }
}
