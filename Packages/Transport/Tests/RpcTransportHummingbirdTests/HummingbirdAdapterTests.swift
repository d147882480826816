import Hummingbird
import NIOHTTP1
import RpcTesting
import RpcTransport
import RpcTransportHummingbird
import RpcTransportNIO
import Testing

@Suite("Hummingbird adapter")
struct HummingbirdAdapterTests {
    /// The headers of a valid opening handshake, for a plain HTTP client to send.
    static let handshake: HTTPHeaders = [
        "connection": "upgrade", "upgrade": "websocket", "sec-websocket-version": "13",
        "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
    ]

    @Test("a route's upgraded WebSocket carries text and binary messages both ways as our WebSocketTransport")
    func echo() async throws {
        let router = Router(context: BasicRequestContext.self)
        router.get("/echo") { request, _ in
            request.upgrade(.accept()) { transport in
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
        let router = Router(context: BasicRequestContext.self)
        let closures = Recorder<TransportClosure>()
        router.get("/bye") { request, _ in
            request.upgrade(.accept()) { transport in
                do {
                    for try await _ in transport.inboundMessages() {
                        await transport.close(code: CloseCode(4001), reason: "bye")
                    }
                } catch {}
                closures.append(await transport.waitUntilClosed())
            }
        }
        try await withRunningApplication(router: router) { port in
            let client = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(port)/bye")
            try client.enqueue(.text("go"))
            let closure = await client.waitUntilClosed()
            #expect(closure.code == CloseCode(4001))
            #expect(closure.reason == "bye")
            try await waitUntil("the server's transport is closed") { closures.all.count == 1 }
        }
    }

    @Test("a message over the route's limit closes the connection with 1009")
    func tooLarge() async throws {
        let router = Router(context: BasicRequestContext.self)
        let closures = Recorder<TransportClosure>()
        router.get("/small") { request, _ in
            request.upgrade(.accept(), configuration: HummingbirdTransportConfiguration(maxFrameSize: 1024, maxMessageSize: 1024)) {
                transport in
                closures.append(await transport.waitUntilClosed())
            }
        }
        try await withRunningApplication(router: router) { port in
            let client = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(port)/small")
            try client.enqueue(.binary([UInt8](repeating: 1, count: 2000)))
            let closure = await client.waitUntilClosed()
            #expect(closure.code == .messageTooBig)
            try await waitUntil("the server's transport is closed") { closures.all.count == 1 }
            #expect(closures.all.first?.error?.code == .messageTooLarge)
        }
    }

    @Test("the route's subprotocol and permessage-deflate are agreed in the handshake")
    func subprotocolAndDeflate() async throws {
        let router = Router(context: BasicRequestContext.self)
        router.get("/chat") { request, _ in
            request.upgrade(.accept(subprotocol: "chat"), configuration: HummingbirdTransportConfiguration(deflate: .default)) {
                transport in
                do {
                    for try await message in transport.inboundMessages() { try await transport.send(message) }
                } catch {}
            }
        }
        try await withRunningApplication(router: router) { port in
            var configuration = WebSocketClientConfiguration()
            configuration.subprotocols = ["other", "chat"]
            configuration.deflate = .default
            let client = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(port)/chat", configuration: configuration)
            #expect(client.subprotocol == "chat")
            #expect(client.isCompressionEnabled)
            let text = String(repeating: "compress me ", count: 1000)
            try client.enqueue(.text(text))
            var iterator = client.inboundMessages().makeAsyncIterator()
            #expect(try await iterator.next() == .text(text))
            await client.close()
        }
    }

    @Test("an upgrade the router's middleware refuses gets the middleware's own answer: status, headers and body")
    func middlewareRefusal() async throws {
        let router = Router(context: BasicRequestContext.self)
        let served = Recorder<String>()
        router.add(middleware: TokenMiddleware())
        router.get("/guarded") { request, _ in
            request.upgrade(.accept()) { transport in
                served.append("connection")
                await transport.close(code: .normal, reason: "")
            }
        }
        try await withRunningApplication(router: router) { port in
            let http = try HTTPClient(baseURL: "http://127.0.0.1:\(port)")
            let refused = try await http.execute(HTTPClientRequest(method: .GET, path: "/guarded", headers: Self.handshake))
            await http.close()
            #expect(refused.status == 401)
            #expect(refused.headers.first(name: "www-authenticate") == "Bearer")
            #expect(refused.text == "no token")

            let refusal = await #expect(throws: TransportError.self) {
                _ = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(port)/guarded")
            }
            #expect(refusal?.code == .upgradeRejected)
            #expect(refusal?.httpStatus == 401)

            var configuration = WebSocketClientConfiguration()
            configuration.headers.add(name: "authorization", value: "Bearer token")
            let client = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(port)/guarded", configuration: configuration)
            _ = await client.waitUntilClosed()
            #expect(served.all == ["connection"])
        }
    }

    @Test("an upgrade the route refuses gets the decision's status, and one to no route the router's 404")
    func routeRefusal() async throws {
        let router = Router(context: BasicRequestContext.self)
        router.get("/closed") { request, _ in
            request.upgrade(.reject(status: 403)) { _ in }
        }
        try await withRunningApplication(router: router) { port in
            for (path, status) in [("/closed", 403), ("/nowhere", 404)] {
                let refusal = await #expect(throws: TransportError.self) {
                    _ = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(port)\(path)")
                }
                #expect(refusal?.httpStatus == status, "the upgrade at \(path)")
            }
        }
    }

    @Test("stopping the application closes the WebSockets its routes serve with 1001 and ends their handlers")
    func shutdown() async throws {
        let router = Router(context: BasicRequestContext.self)
        let ended = Recorder<TransportClosure>()
        router.get("/stay") { request, _ in
            request.upgrade(.accept()) { transport in
                do {
                    for try await message in transport.inboundMessages() { try await transport.send(message) }
                } catch {}
                ended.append(await transport.waitUntilClosed())
            }
        }
        let client = try await withRunningApplication(router: router) { port in
            let client = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(port)/stay")
            try client.enqueue(.text("here"))
            var iterator = client.inboundMessages().makeAsyncIterator()
            #expect(try await iterator.next() == .text("here"))
            return client
        }
        let closure = await client.waitUntilClosed()
        #expect(closure.code == .goingAway)
        #expect(ended.all.map(\.code) == [.goingAway])
    }

    @Test("a Hummingbird request becomes an HTTPServerRequest, and an HTTPServerResponse its Response")
    func requestAndResponse() async throws {
        let router = Router(context: BasicRequestContext.self)
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

/// Refuses a request without `authorization: Bearer token` with its own 401: a
/// `www-authenticate` header and a text body.
struct TokenMiddleware: RouterMiddleware {
    typealias Context = BasicRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.headers[.authorization] == "Bearer token" else {
            return Response(
                status: .unauthorized, headers: [.wwwAuthenticate: "Bearer"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: "no token")))
        }
        return try await next(request, context)
    }
}
