import Hummingbird
import HummingbirdWebSocket
import NIOHTTP1
import RpcTesting
import RpcTransport
import RpcTransportHummingbird
import RpcTransportNIO
import Testing

@Suite("Hummingbird adapter")
struct HummingbirdWebSocketTransportTests {
    @Test("a Hummingbird WebSocket carries text and binary messages both ways as a MessageTransport")
    func echo() async throws {
        let router = Router(context: BasicWebSocketRequestContext.self)
        router.ws("/echo") { inbound, outbound, _ in
            await HummingbirdWebSocketTransport.withTransport(inbound: inbound, outbound: outbound) { transport in
                do {
                    for try await message in transport.inboundMessages() {
                        try await transport.send(message)
                    }
                } catch {}
            }
        }
        try await withRunningApplication(router: router) { port in
            let client = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(port)/echo")
            let big = [UInt8](repeating: 7, count: 200_000)
            try client.enqueue(.text("hello"))
            try client.enqueue(.binary([0, 1, 2, 255]))
            try client.enqueue(.binary(big))
            var received: [TransportMessage] = []
            for try await message in client.inboundMessages() {
                received.append(message)
                if received.count == 3 { break }
            }
            #expect(received == [.text("hello"), .binary([0, 1, 2, 255]), .binary(big)])
            await client.close()
        }
    }

    @Test("closing the server's transport sends its close code and reason to the client")
    func closeCode() async throws {
        let router = Router(context: BasicWebSocketRequestContext.self)
        router.ws("/bye") { inbound, outbound, _ in
            await HummingbirdWebSocketTransport.withTransport(inbound: inbound, outbound: outbound) { transport in
                do {
                    for try await _ in transport.inboundMessages() {
                        await transport.close(code: CloseCode(4001), reason: "bye")
                    }
                } catch {}
                #expect(transport.state.isClosed)
            }
        }
        try await withRunningApplication(router: router) { port in
            let client = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(port)/bye")
            try client.enqueue(.text("go"))
            let closure = await client.waitUntilClosed()
            #expect(closure.code == CloseCode(4001))
            #expect(closure.reason == "bye")
        }
    }

    @Test("a message over the transport's limit closes the connection with 1009")
    func tooLarge() async throws {
        let router = Router(context: BasicWebSocketRequestContext.self)
        let closures = Recorder<TransportClosure>()
        router.ws("/small") { inbound, outbound, _ in
            let configuration = HummingbirdWebSocketTransport.Configuration(maxMessageSize: 1024)
            await HummingbirdWebSocketTransport.withTransport(inbound: inbound, outbound: outbound, configuration: configuration) {
                transport in
                for await state in transport.stateUpdates() {
                    if case .closed(let closure) = state { closures.append(closure) }
                }
            }
        }
        try await withRunningApplication(router: router) { port in
            let client = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(port)/small")
            try client.enqueue(.binary([UInt8](repeating: 1, count: 2000)))
            let closure = await client.waitUntilClosed()
            #expect(closure.code == .messageTooBig)
            #expect(closures.all.first?.error?.code == .messageTooLarge)
        }
    }

    @Test("a Hummingbird request becomes an HTTPServerRequest, and an HTTPServerResponse its Response")
    func requestAndResponse() async throws {
        let router = Router(context: BasicWebSocketRequestContext.self)
        router.post("/mirror") { request, _ -> Response in
            do throws(TransportError) {
                let ours = try await HTTPServerRequest(request, maxBodySize: 16)
                var headers = HTTPHeaders()
                headers.add(name: "x-method", value: ours.method.rawValue)
                headers.add(name: "x-path", value: ours.path)
                headers.add(name: "x-query", value: ours.queryValue("q") ?? "")
                headers.add(name: "x-token", value: ours.headers.first(name: "x-token") ?? "")
                return Response(HTTPServerResponse(status: 201, headers: headers, body: ours.body))
            } catch {
                return Response(HTTPServerResponse(status: error.httpStatus ?? 500, text: error.message))
            }
        }
        try await withRunningApplication(router: router) { port in
            let client = try HTTPClient(baseURL: "http://127.0.0.1:\(port)")
            let answer = try await client.execute(
                HTTPClientRequest(method: .POST, path: "/mirror?q=1%202", headers: ["x-token": "t"], body: Array("body".utf8)))
            #expect(answer.status == 201)
            #expect(answer.body == Array("body".utf8))
            #expect(answer.headers.first(name: "x-method") == "POST")
            #expect(answer.headers.first(name: "x-path") == "/mirror")
            #expect(answer.headers.first(name: "x-query") == "1 2")
            #expect(answer.headers.first(name: "x-token") == "t")
            let tooLarge = try await client.execute(
                HTTPClientRequest(method: .POST, path: "/mirror", body: [UInt8](repeating: 0, count: 17)))
            #expect(tooLarge.status == 413)
            await client.close()
        }
    }
}
