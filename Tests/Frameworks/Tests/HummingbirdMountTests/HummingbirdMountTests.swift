import CapnWeb
import Foundation
import NIOHTTP1
import RivetKit
import RpcTesting
import RpcTransport
import RpcTransportNIO
import RpcWire
import Testing
import Tinyvex

@Suite("Cap'n Web, the RivetKit gateway and Tinyvex mounted on a Hummingbird application", .timeLimit(.minutes(2)))
struct HummingbirdMountTests {
    static let alice: HTTPHeaders = ["authorization": "Bearer alice-token"]

    @Test("the ordinary route answers beside the mounts, behind the same auth middleware")
    func ordinaryRoute() async throws {
        try await MountedApplication.run { app in
            let client = try HTTPClient(baseURL: "http://127.0.0.1:\(app.port)")
            let hello = try await client.execute(HTTPClientRequest(method: .GET, path: "/hello", headers: Self.alice))
            #expect(hello.status == 200)
            #expect(hello.text == "hello alice")
            let refused = try await client.execute(HTTPClientRequest(method: .GET, path: "/hello"))
            #expect(refused.status == 401)
            await client.close()
        }
    }

    @Test("our Cap'n Web WebSocket client calls the mounted endpoint, whose main object was made for the authenticated user")
    func capnWebWebSocket() async throws {
        try await MountedApplication.run { app in
            try await withRpcSession(to: app.rpcWebSocketURL, configure: { $0.headers["authorization"] = "Bearer bob-token" }) { session in
                let user: String = try await session.api.whoami()
                let square: Double = try await session.api.square(7)
                #expect(user == "bob")
                #expect(square == 49)
                try await waitUntil("the client's tables are back to their main entries") {
                    session.getStats() == RpcStats(imports: 1, exports: 1)
                }
            }
        }
    }

    @Test("our Cap'n Web HTTP batch client's calls are answered by the mounted endpoint for the authenticated user")
    func capnWebBatch() async throws {
        try await MountedApplication.run { app in
            let (user, square) = try await RpcSession<Any>.batch(
                url: app.rpcBatchURL, configure: { $0.headers["authorization"] = "Bearer alice-token" }
            ) { api in
                async let user: String = api.whoami()
                async let square: Double = api.square(3)
                return try await (user, square)
            }
            #expect(user == "alice")
            #expect(square == 9)
        }
    }

    @Test("RivetKitClient drives an actor through the mounted gateway, over HTTP and over its realtime connection")
    func rivetKit() async throws {
        try await MountedApplication.run { app in
            var config = ClientConfig(endpoint: app.rivetEndpoint, headers: ["authorization": "Bearer alice-token"])
            config.disableMetadataLookup = true
            let client = RivetKitClient(config, transports: Self.authorizedTransports(token: "alice-token"))
            let handle = client.getOrCreate("counter", key: ["hummingbird"])
            let overHTTP = try await handle.action("increment", args: [2])
            #expect(overHTTP == 2)
            let connection = handle.connect()
            connection.start()
            let overConnection = try await connection.action("increment", args: [3])
            #expect(overConnection == 5)
            await connection.dispose()
            await client.close()
        }
    }

    @Test("our Tinyvex client's mutation and live query go through the mounted endpoint, its identity from the request's user")
    func tinyvex() async throws {
        try await MountedApplication.run { app in
            var configuration = TinyvexClientConfiguration()
            configuration.delivery = .immediate
            try await TinyvexClient.withClient(
                endpoint: app.tinyvexURL, configuration: configuration,
                transportFactory: { _ in try await Self.webSocket(app.tinyvexURL.absoluteString, token: "bob-token") }
            ) { client in
                #expect(try await client.query("whoami", params: [String: String](), as: String.self) == "bob")
                let counts: AsyncThrowingStream<Int, any Error> = client.subscribe("notes.count", params: [String: String](), as: Int.self)
                var iterator = counts.makeAsyncIterator()
                #expect(try await iterator.next() == 0)
                _ = try await client.mutation("notes.add", args: ["text": "hi"], as: Int64.self)
                #expect(try await iterator.next() == 1)
            }
        }
    }

    @Test("an unauthenticated request to each mounted protocol's HTTP routes is refused by the application's middleware with 401")
    func unauthenticated() async throws {
        try await MountedApplication.run { app in
            let http = try HTTPClient(baseURL: "http://127.0.0.1:\(app.port)")
            let batch = try await http.execute(HTTPClientRequest(method: .POST, path: "/rpc", body: Array(#"["pull",1]"#.utf8)))
            #expect(batch.status == 401)
            let metadata = try await http.execute(HTTPClientRequest(method: .GET, path: "/rivet/metadata"))
            #expect(metadata.status == 401)
            let actors = try await http.execute(HTTPClientRequest(method: .PUT, path: "/rivet/actors", json: #"{"name":"counter","key":"[]"}"#))
            #expect(actors.status == 401)
            await http.close()
            let refused = app.refusals.all
            for path in ["/rpc", "/rivet/metadata", "/rivet/actors"] {
                #expect(refused.contains(path), "the middleware refused \(path)")
            }
            await #expect(throws: (any Error).self) {
                try await withRpcSession(to: app.rpcWebSocketURL) { _ in }
            }
        }
    }

    /// The WebSocket routes of the mounts, with the subprotocols their clients offer.
    static let webSocketRoutes: [String: [String]] = [
        "/rpc": [], "/rivet/gateway/counter/connect": ["rivet"], "/tinyvex": [],
    ]

    @Test(
        "an unauthenticated WebSocket upgrade to each mounted protocol gets the application's middleware's own answer: 401, its header and its body",
        arguments: ["/rpc", "/rivet/gateway/counter/connect", "/tinyvex"])
    func unauthenticatedWebSocket(path: String) async throws {
        try await MountedApplication.run { app in
            let subprotocols = Self.webSocketRoutes[path] ?? []
            var configuration = WebSocketClientConfiguration()
            configuration.subprotocols = subprotocols
            let refusal = await #expect(throws: TransportError.self) {
                _ = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(app.port)\(path)", configuration: configuration)
            }
            #expect(refusal?.code == .upgradeRejected)
            #expect(refusal?.httpStatus == 401)

            var handshake: HTTPHeaders = [
                "connection": "upgrade", "upgrade": "websocket", "sec-websocket-version": "13",
                "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
            ]
            if let subprotocol = subprotocols.first {
                handshake.add(name: "sec-websocket-protocol", value: subprotocol)
            }
            let http = try HTTPClient(baseURL: "http://127.0.0.1:\(app.port)")
            let answer = try await http.execute(HTTPClientRequest(method: .GET, path: path, headers: handshake))
            await http.close()
            #expect(answer.status == 401)
            #expect(answer.headers.first(name: "www-authenticate") == "Bearer")
            #expect(answer.text?.contains("a bearer token is required") == true)
            #expect(app.refusals.all.filter { $0 == path }.count == 2, "the middleware refused both upgrades")
        }
    }

    /// WebSockets that carry the bearer token, for the RivetKit client.
    static func authorizedTransports(token: String) -> ClientTransports {
        var transports = ClientTransports.network
        transports.openSocket = { url, subprotocols in
            var configuration = WebSocketClientConfiguration()
            configuration.subprotocols = subprotocols
            configuration.headers.add(name: "authorization", value: "Bearer \(token)")
            let transport = try await WebSocketClient.connect(to: url, configuration: configuration)
            return (transport, transport.subprotocol)
        }
        return transports
    }

    /// A WebSocket to `url` carrying the bearer token.
    static func webSocket(_ url: String, token: String) async throws -> any MessageTransport {
        var configuration = WebSocketClientConfiguration()
        configuration.headers.add(name: "authorization", value: "Bearer \(token)")
        return try await WebSocketClient.connect(to: url, configuration: configuration)
    }
}
