import NIOCore
import NIOHTTP1
import RpcTesting
import RpcTransport
import RpcTransportNIO
import RpcTransportTesting
import Synchronization
import Testing

@Suite("HTTP request routing beside WebSocket upgrades")
struct HTTPRoutingTests {
    /// The requests a routing server received, in order.
    final class Seen: Sendable {
        let requests = Mutex<[HTTPServerRequest]>([])
        let upgrades = Mutex<[WebSocketUpgradeRequest]>([])
        var all: [HTTPServerRequest] { requests.withLock { $0 } }
    }

    /// Answers every request with `METHOD path|query|body` and status 200, except `/missing`
    /// (a 404 with a JSON body), `/refuse` (a thrown 401) and `/crash` (a thrown error). Upgrades
    /// to `/gateway/.../connect` are accepted with the `rivet` subprotocol when offered.
    static func run(
        configuration: TransportServerConfiguration = TransportServerConfiguration(address: .host("127.0.0.1", port: 0)),
        _ body: (TransportServer, Seen) async throws -> Void
    ) async throws {
        let seen = Seen()
        var configuration = configuration
        configuration.upgradeHook = { request in
            seen.upgrades.withLock { $0.append(request) }
            guard request.path.hasPrefix("/gateway/"), request.path.hasSuffix("/connect") else {
                return .reject(status: 404)
            }
            guard request.offeredSubprotocols.contains("rivet") else { return .reject(status: 400) }
            return .accept(subprotocol: "rivet")
        }
        struct Crash: Error {}
        try await withTransportServer(
            configuration: configuration,
            onConnection: { transport, request in
                transport.start { event in
                    if case .message = event {
                        try? transport.enqueue(.text("\(request.path)?\(request.query)"))
                    }
                }
                _ = await transport.waitUntilClosed()
            },
            onRequest: { request in
                seen.requests.withLock { $0.append(request) }
                switch request.path {
                case "/missing":
                    return HTTPServerResponse(status: 404, json: #"{"group":"actor","code":"not_found"}"#)
                case "/refuse":
                    throw TransportError(code: .httpStatus, message: "no entry", httpStatus: 401)
                case "/crash":
                    throw Crash()
                default:
                    var headers = HTTPHeaders()
                    headers.add(name: "x-seen-method", value: request.method.rawValue)
                    return HTTPServerResponse(
                        status: 200,
                        text: "\(request.method.rawValue) \(request.path)|\(request.query)|\(request.bodyText ?? "?")",
                        headers: headers
                    )
                }
            }
        ) { server in
            try await body(server, seen)
        }
    }

    static func baseURL(_ server: TransportServer) -> String {
        "http://127.0.0.1:\(server.port ?? 0)"
    }

    @Test("Requests of every method reach the handler with their path, query, headers and body")
    func everyMethod() async throws {
        try await Self.run { server, seen in
            let client = try HTTPClient(baseURL: Self.baseURL(server))
            let get = try await client.execute(HTTPClientRequest(method: .GET, path: "/metadata?namespace=ns1"))
            #expect(get.status == 200)
            #expect(get.text == "GET /metadata|namespace=ns1|")
            #expect(get.headers.first(name: "x-seen-method") == "GET")
            let put = try await client.execute(
                HTTPClientRequest(method: .PUT, path: "/actors?namespace=default", json: #"{"name":"counter"}"#))
            #expect(put.text == #"PUT /actors|namespace=default|{"name":"counter"}"#)
            var postHeaders = HTTPHeaders()
            postHeaders.add(name: "x-rivet-encoding", value: "json")
            let post = try await client.execute(
                HTTPClientRequest(method: .POST, path: "/gateway/a1/action/increment", json: #"{"args":[5]}"#, headers: postHeaders))
            #expect(post.text == #"POST /gateway/a1/action/increment||{"args":[5]}"#)
            let delete = try await client.execute(HTTPClientRequest(method: .DELETE, path: "/actors/a1"))
            #expect(delete.text == "DELETE /actors/a1||")
            let requests = seen.all
            #expect(requests.map(\.method) == [.GET, .PUT, .POST, .DELETE])
            #expect(requests[1].headers.first(name: "content-type") == "application/json")
            #expect(requests[2].headers.first(name: "x-rivet-encoding") == "json")
            #expect(requests.allSatisfy { $0.headers.first(name: "host") == "127.0.0.1:\(server.port ?? 0)" })
            // One keep-alive connection carried all four.
            #expect(Set(requests.compactMap { $0.remoteAddress?.port }).count == 1)
            await client.close()
        }
    }

    @Test("Query parameters are split and percent-decoded, and encoding them round-trips")
    func queryStrings() async throws {
        try await Self.run { server, seen in
            let client = try HTTPClient(baseURL: Self.baseURL(server) + "/api/rivet/")
            let response = try await client.execute(
                HTTPClientRequest(method: .GET, path: "/actors?name=counter&key=a%2Cb,c&flag&note=x+y%20z"))
            #expect(response.text == "GET /api/rivet/actors|name=counter&key=a%2Cb,c&flag&note=x+y%20z|")
            let request = try #require(seen.all.first)
            #expect(request.path == "/api/rivet/actors")
            #expect(request.queryValue("name") == "counter")
            #expect(request.queryValue("key") == "a,b,c")
            #expect(request.queryValue("flag") == "")
            #expect(request.queryValue("note") == "x y z")
            #expect(request.queryValue("absent") == nil)
            await client.close()
        }
        let encoded = HTTPQuery.encode([(name: "rvt-key", value: "a,b/ü"), (name: "x", value: "{\"user\":1}")])
        #expect(encoded == "rvt-key=a%2Cb%2F%C3%BC&x=%7B%22user%22%3A1%7D")
        #expect(HTTPQuery.items(of: encoded).map(\.value) == ["a,b/ü", "{\"user\":1}"])
        #expect(HTTPQuery.decode("100%") == "100%")
        // The strict decoder refuses what the lenient one keeps as written.
        #expect(HTTPQuery.decodeStrictly("a%2Cb+c%C3%BC") == "a,b cü")
        #expect(HTTPQuery.decodeStrictly("100%") == nil)
        #expect(HTTPQuery.decodeStrictly("%zz") == nil)
        #expect(HTTPQuery.decodeStrictly("%FF") == nil)
        #expect(HTTPQuery.decode("%FF") == "%FF")
    }

    @Test("Every status comes back as a response; thrown refusals keep their status, other errors become 500")
    func statuses() async throws {
        try await Self.run { server, seen in
            let client = try HTTPClient(baseURL: Self.baseURL(server))
            let missing = try await client.execute(HTTPClientRequest(method: .GET, path: "/missing"))
            #expect(missing.status == 404)
            #expect(missing.headers.first(name: "content-type") == "application/json")
            #expect(missing.text == #"{"group":"actor","code":"not_found"}"#)
            let refused = try await client.execute(HTTPClientRequest(method: .POST, path: "/refuse"))
            #expect(refused.status == 401)
            #expect(refused.text == "no entry")
            let crashed = try await client.execute(HTTPClientRequest(method: .PATCH, path: "/crash"))
            #expect(crashed.status == 500)
            #expect(seen.all.count == 3)
            await client.close()
        }
    }

    @Test("A body over the request body limit is answered 413 and never reaches the handler")
    func bodyLimit() async throws {
        var configuration = TransportServerConfiguration(address: .host("127.0.0.1", port: 0))
        configuration.maxRequestBodySize = 64
        try await Self.run(configuration: configuration) { server, seen in
            let client = try HTTPClient(baseURL: Self.baseURL(server))
            let fits = try await client.execute(
                HTTPClientRequest(method: .POST, path: "/small", body: Array(repeating: UInt8(ascii: "a"), count: 64)))
            #expect(fits.status == 200)
            let tooLarge = try await client.execute(
                HTTPClientRequest(method: .PUT, path: "/large", body: Array(repeating: UInt8(ascii: "a"), count: 65)))
            #expect(tooLarge.status == 413)
            #expect(seen.all.map(\.path) == ["/small"])
            // The client opens a fresh connection after the refused one was closed.
            let after = try await client.execute(HTTPClientRequest(method: .GET, path: "/after"))
            #expect(after.status == 200)
            await client.close()
        }
    }

    @Test("The 413 answer to a body over the limit can be shaped by the configuration; its status stays 413")
    func shapedBodyLimit() async throws {
        var configuration = TransportServerConfiguration(address: .host("127.0.0.1", port: 0))
        configuration.maxRequestBodySize = 16
        configuration.requestTooLargeResponse = { limit in
            HTTPServerResponse(status: 400, json: #"{"limit":\#(limit)}"#, headers: ["x-limit": "\(limit)"])
        }
        try await Self.run(configuration: configuration) { server, seen in
            let client = try HTTPClient(baseURL: Self.baseURL(server))
            let tooLarge = try await client.execute(
                HTTPClientRequest(method: .POST, path: "/large", body: Array(repeating: UInt8(ascii: "a"), count: 17)))
            #expect(tooLarge.status == 413)
            #expect(tooLarge.headers.first(name: "content-type") == "application/json")
            #expect(tooLarge.headers.first(name: "x-limit") == "16")
            #expect(String(decoding: tooLarge.body, as: UTF8.self) == #"{"limit":16}"#)
            #expect(seen.all.isEmpty)
            await client.close()
        }
    }

    @Test("A body sent in chunks without a length is limited the same way")
    func chunkedBodyLimit() async throws {
        var configuration = TransportServerConfiguration(address: .host("127.0.0.1", port: 0))
        configuration.maxRequestBodySize = 8
        try await Self.run(configuration: configuration) { server, seen in
            let raw = try await RawTCPClient.connect(port: server.port ?? 0)
            try await raw.write(
                "POST /chunks HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n5\r\nworld\r\n0\r\n\r\n")
            let head = try await raw.responseHead()
            #expect(head.hasPrefix("HTTP/1.1 413"))
            #expect(seen.all.isEmpty)
            await raw.close()
        }
    }

    @Test("A WebSocket upgrade beside routing sees its path and query and gets the subprotocol the hook picked from the offer")
    func upgradeWithSubprotocols() async throws {
        try await Self.run { server, seen in
            var configuration = WebSocketClientConfiguration()
            configuration.subprotocols = ["rivet", "rivet_encoding.json", "rivet_conn_params.%7B%22user%22%3A%22alice%22%7D"]
            let url =
                "ws://127.0.0.1:\(server.port ?? 0)/gateway/counter/connect?rvt-namespace=default&rvt-method=getOrCreate&rvt-key=k1"
            let transport = try await WebSocketClient.connect(to: url, configuration: configuration)
            #expect(transport.subprotocol == "rivet")
            let recorder = EventRecorder(transport)
            try await transport.send(.text("hi"))
            #expect(
                try await recorder.messages(count: 1)
                    == [.text("/gateway/counter/connect?rvt-namespace=default&rvt-method=getOrCreate&rvt-key=k1")])
            let upgrade = try #require(seen.upgrades.withLock { $0.first })
            #expect(upgrade.offeredSubprotocols == configuration.subprotocols)
            #expect(upgrade.queryValue("rvt-namespace") == "default")
            #expect(upgrade.queryValue("rvt-key") == "k1")
            #expect(seen.all.isEmpty)
            await transport.close()
        }
    }

    @Test("An upgrade the hook refuses gets its status, while plain requests to the same path are routed")
    func refusedUpgrade() async throws {
        try await Self.run { server, seen in
            var configuration = WebSocketClientConfiguration()
            configuration.subprotocols = ["other"]
            let error = await #expect(throws: TransportError.self) {
                _ = try await WebSocketClient.connect(
                    to: "ws://127.0.0.1:\(server.port ?? 0)/gateway/counter/connect", configuration: configuration)
            }
            #expect(error?.code == .upgradeRejected)
            #expect(error?.httpStatus == 400)
            let client = try HTTPClient(baseURL: Self.baseURL(server))
            let plain = try await client.execute(HTTPClientRequest(method: .GET, path: "/gateway/counter/connect"))
            #expect(plain.text == "GET /gateway/counter/connect||")
            #expect(seen.all.count == 1)
            await client.close()
        }
    }

    @Test("HTTP requests of any method travel over TLS through the same client stack")
    func overTLS() async throws {
        let fixture = try await CertificateFixture.shared()
        var configuration = TransportServerConfiguration(address: .host("127.0.0.1", port: 0))
        configuration.tls = fixture.serverConfiguration()
        try await Self.run(configuration: configuration) { server, _ in
            var clientConfiguration = HTTPClientConfiguration()
            clientConfiguration.tls = fixture.clientConfiguration()
            let client = try HTTPClient(
                baseURL: "https://127.0.0.1:\(server.port ?? 0)", configuration: clientConfiguration)
            let response = try await client.execute(HTTPClientRequest(method: .DELETE, path: "/actors/x?namespace=n"))
            #expect(response.text == "DELETE /actors/x|namespace=n|")
            await client.close()
            let plain = try HTTPClient(baseURL: "http://127.0.0.1:\(server.port ?? 0)")
            await #expect(throws: TransportError.self) {
                _ = try await plain.execute(HTTPClientRequest(method: .GET, path: "/x"))
            }
            await plain.close()
        }
    }

    @Test("A request path that does not start with / is refused before anything is sent")
    func badPath() async throws {
        let client = try HTTPClient(baseURL: "http://127.0.0.1:1")
        let error = await #expect(throws: TransportError.self) {
            _ = try await client.execute(HTTPClientRequest(method: .GET, path: "metadata"))
        }
        #expect(error?.code == .invalidTarget)
        await client.close()
    }
}
