import RpcTesting
import RpcTransport
import RpcTransportNIO
import RpcTransportVapor
import Synchronization
import Testing
import Vapor

@Suite("Vapor WebSockets as our transports")
struct VaporWebSocketTests {
    /// Sends back every message until the client closes.
    static func echo(_ transport: WebSocketTransport) async {
        do {
            for try await message in transport.inboundMessages() {
                try await transport.send(message)
            }
        } catch {}
    }

    static func url(_ port: Int, _ path: String) -> String {
        "ws://127.0.0.1:\(port)\(path)"
    }

    @Test("A route's WebSocket carries text and binary messages both ways, a 1 MiB one too, and closes cleanly")
    func echoesMessages() async throws {
        try await VaporTestApp.run(configure: { app in
            app.get("echo") { request in request.upgrade(.accept(), onConnection: Self.echo) }
        }) { _, port in
            let transport = try await WebSocketClient.connect(to: Self.url(port, "/echo"))
            let log = MessageLog(transport)
            let text = TransportMessage.text("héllo, wörld")
            let small = TransportMessage.binary([0, 1, 255])
            let large = TransportMessage.binary((0 ..< (1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
            try await transport.send(text)
            try await transport.send(small)
            try await transport.send(large)
            #expect(try await log.next() == text)
            #expect(try await log.next() == small)
            #expect(try await log.next() == large)
            await transport.close()
            let closure = try await log.closure()
            #expect(closure.isClean)
            #expect(closure.code == .normal)
        }
    }

    @Test("The application's middleware runs before the upgrade: without the token the handshake gets 401")
    func middlewareRefusesUpgrade() async throws {
        let served = Mutex(0)
        try await VaporTestApp.run(configure: { app in
            app.grouped(BearerTokenMiddleware()).get("private") { request in
                request.upgrade(.accept()) { transport in
                    served.withLock { $0 += 1 }
                    await Self.echo(transport)
                }
            }
        }) { _, port in
            do {
                _ = try await WebSocketClient.connect(to: Self.url(port, "/private"))
                Issue.record("the upgrade without a token was accepted")
            } catch let error as TransportError {
                #expect(error.code == .upgradeRejected)
                #expect(error.httpStatus == 401)
            }
            #expect(served.withLock { $0 } == 0)
            var configuration = WebSocketClientConfiguration()
            configuration.headers = ["authorization": "Bearer secret"]
            let transport = try await WebSocketClient.connect(to: Self.url(port, "/private"), configuration: configuration)
            let log = MessageLog(transport)
            try await transport.send(.text("in"))
            #expect(try await log.next() == .text("in"))
            #expect(served.withLock { $0 } == 1)
            await transport.close()
        }
    }

    @Test("A refused decision answers the handshake with its status; a plain GET to the route gets 400")
    func refusalsAndMalformedHandshakes() async throws {
        try await VaporTestApp.run(configure: { app in
            app.get("closed") { request in request.upgrade(.reject(status: 403), onConnection: Self.echo) }
            app.get("echo") { request in request.upgrade(.accept(), onConnection: Self.echo) }
        }) { _, port in
            do {
                _ = try await WebSocketClient.connect(to: Self.url(port, "/closed"))
                Issue.record("the refused upgrade was accepted")
            } catch let error as TransportError {
                #expect(error.code == .upgradeRejected)
                #expect(error.httpStatus == 403)
            }
            let client = try RpcTransportNIO.HTTPClient(baseURL: "http://127.0.0.1:\(port)")
            let response = try await client.execute(HTTPClientRequest(method: .GET, path: "/echo"))
            #expect(response.status == 400)
            await client.close()
        }
    }

    @Test("The subprotocol the decision accepts and permessage-deflate reach both ends")
    func subprotocolAndCompression() async throws {
        try await VaporTestApp.run(configure: { app in
            app.get("rpc") { request in
                let offered = request.webSocketUpgradeRequest().offeredSubprotocols
                return request.upgrade(
                    .accept(subprotocol: offered.last),
                    configuration: VaporTransportConfiguration(deflate: .default)
                ) { transport in
                    try? await transport.send(
                        .text("\(transport.subprotocol ?? "none") \(transport.isCompressionEnabled)"))
                    await Self.echo(transport)
                }
            }
        }) { _, port in
            var configuration = WebSocketClientConfiguration()
            configuration.subprotocols = ["first", "second"]
            configuration.deflate = .default
            let transport = try await WebSocketClient.connect(to: Self.url(port, "/rpc"), configuration: configuration)
            let log = MessageLog(transport)
            #expect(transport.subprotocol == "second")
            #expect(transport.isCompressionEnabled)
            #expect(try await log.next() == .text("second true"))
            let repetitive = TransportMessage.text(String(repeating: "compress me ", count: 10_000))
            try await transport.send(repetitive)
            #expect(try await log.next() == repetitive)
            await transport.close()
        }
    }

    @Test("A message over the configured limit closes the connection with 1009")
    func messageLimit() async throws {
        try await VaporTestApp.run(configure: { app in
            app.get("small") { request in
                request.upgrade(.accept(), configuration: VaporTransportConfiguration(maxMessageSize: 1024), onConnection: Self.echo)
            }
        }) { _, port in
            let transport = try await WebSocketClient.connect(to: Self.url(port, "/small"))
            let log = MessageLog(transport)
            try await transport.send(.binary([UInt8](repeating: 1, count: 1024)))
            #expect(try await log.next().bytes.count == 1024)
            try await transport.send(.binary([UInt8](repeating: 2, count: 1025)))
            let closure = try await log.closure()
            #expect(closure.code == .messageTooBig)
        }
    }

    @Test("The close code and reason the route's handler closes with reach the client")
    func serverCloseCode() async throws {
        try await VaporTestApp.run(configure: { app in
            app.get("bye") { request in
                request.upgrade(.accept()) { transport in
                    await transport.close(code: CloseCode(4001), reason: "done here")
                }
            }
        }) { _, port in
            let transport = try await WebSocketClient.connect(to: Self.url(port, "/bye"))
            let log = MessageLog(transport)
            let closure = try await log.closure()
            #expect(closure.code == CloseCode(4001))
            #expect(closure.reason == "done here")
            #expect(!closure.initiatedLocally)
        }
    }

    @Test("send on a small outbound buffer waits for the client, and every message arrives in order")
    func backpressure() async throws {
        let count = 200
        try await VaporTestApp.run(configure: { app in
            app.get("flood") { request in
                request.upgrade(.accept(), configuration: VaporTransportConfiguration(outboundBufferLimit: 16 * 1024)) {
                    transport in
                    for index in 0 ..< count {
                        var bytes = [UInt8](repeating: UInt8(truncatingIfNeeded: index), count: 64 * 1024)
                        bytes[0] = UInt8(truncatingIfNeeded: index >> 8)
                        do { try await transport.send(.binary(bytes)) } catch { return }
                    }
                    await Self.echo(transport)
                }
            }
        }) { _, port in
            let transport = try await WebSocketClient.connect(to: Self.url(port, "/flood"))
            let log = MessageLog(transport)
            for index in 0 ..< count {
                let message = try await log.next()
                #expect(message.bytes.count == 64 * 1024)
                #expect(message.bytes.last == UInt8(truncatingIfNeeded: index))
            }
            await transport.close()
        }
    }

    @Test("Stopping the server closes the connections its routes serve with 1001 and ends their handlers")
    func shutdownClosesConnections() async throws {
        let ended = Mutex(false)
        try await VaporTestApp.run(configure: { app in
            app.get("echo") { request in
                request.upgrade(.accept()) { transport in
                    await Self.echo(transport)
                    ended.withLock { $0 = true }
                }
            }
        }) { app, port in
            let transport = try await WebSocketClient.connect(to: Self.url(port, "/echo"))
            let log = MessageLog(transport)
            try await transport.send(.text("up"))
            #expect(try await log.next() == .text("up"))
            await app.server.shutdown()
            let closure = try await log.closure()
            #expect(closure.code == .goingAway)
            try await waitUntil("the handler to end") { ended.withLock { $0 } }
        }
    }
}
