import CapnWeb
import CapnWebConformance
import CapnWebCore
import CapnWebVapor
import Foundation
import RivetKit
import RivetKitServer
import RivetKitVapor
import RpcTesting
import RpcTransportNIO
import Testing
import Tinyvex
import TinyvexServer
import TinyvexVapor
import Vapor

/// Who a request is from, as the application's authenticator found it.
struct User: Authenticatable {
    var name: String
}

/// The application's own authentication: a bearer token names a user; the guard refuses a
/// request without one with 401 before any route sees it.
struct TokenAuthenticator: AsyncBearerAuthenticator {
    static let tokens = ["alice-token": "alice", "bob-token": "bob"]

    func authenticate(bearer: BearerAuthorization, for request: Request) async throws {
        if let name = Self.tokens[bearer.token] {
            request.auth.login(User(name: name))
        }
    }
}

/// The Cap'n Web main object: tells whom its session serves.
final class Api: RpcTarget {
    private let user: String

    init(user: String) {
        self.user = user
    }

    func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
        guard method == "whoAmI" else { throw RpcErrorValue.notAFunction(method) }
        return .string(user)
    }
}

/// A real Vapor application on 127.0.0.1 with an ordinary route, and Cap'n Web, the RivetKit
/// gateway and Tinyvex mounted behind the token guard.
enum MountedApp {
    /// The server did not report the port it listens on.
    struct NoPort: Error {}

    static let alice: HTTPHeaders = ["authorization": "Bearer alice-token"]

    /// Tinyvex's schema: `me` answers the caller's identity.
    static var schema: TinyvexSchema {
        var schema = TinyvexSchema()
        schema.query("me") { (context, _: NoParams) -> String in context.identity ?? "nobody" }
        return schema
    }

    struct NoParams: Codable {}

    /// Runs the application while `body` runs, with its port, and shuts it down after.
    static func run<T>(_ body: (Int) async throws -> T) async throws -> T {
        try await withActorGateway(registry: DemoActors.registry, store: try SQLiteActorStore.inMemory()) { gateway in
            try await TinyvexServer.withEmbeddedServer(schema: schema) { tinyvex in
                let app = try await Application.make(.testing)
                app.logger.logLevel = .warning
                let outcome: Result<T, any Error>
                do {
                    app.get("hello") { _ in "hello" }
                    mountAsInReadme(app, gateway: gateway, tinyvex: tinyvex)
                    // The same gateway again under a group's path, below another path component.
                    app.grouped("v1").grouped(TokenAuthenticator(), User.guardMiddleware())
                        .addRivetKit("mounted", "actors", gateway: gateway)
                    // The conformance test API, for the reference client's frames.
                    app.grouped(TokenAuthenticator(), User.guardMiddleware())
                        .addCapnWeb("test-api") { _ in TestAPI() }
                    try await app.server.start(address: .hostname("127.0.0.1", port: 0))
                    guard let port = app.http.server.shared.localAddress?.port else { throw NoPort() }
                    outcome = .success(try await body(port))
                } catch {
                    outcome = .failure(error)
                }
                await app.server.shutdown()
                try await app.asyncShutdown()
                return try outcome.get()
            }
        }
    }
}

@Suite("Cap'n Web, RivetKit and Tinyvex on a Vapor application")
struct VaporFrameworkTests {
    @Test("The application's ordinary route answers beside the mounts, without a token")
    func ordinaryRoute() async throws {
        try await MountedApp.run { port in
            let client = try RpcTransportNIO.HTTPClient(baseURL: "http://127.0.0.1:\(port)")
            let response = try await client.execute(HTTPClientRequest(method: .GET, path: "/hello"))
            #expect(response.status == 200)
            #expect(response.body == Array("hello".utf8))
            await client.close()
        }
    }

    @Test("A Cap'n Web WebSocket session's main object is made for the authenticated user")
    func capnWebWebSocket() async throws {
        try await MountedApp.run { port in
            let url = try #require(URL(string: "ws://127.0.0.1:\(port)/rpc"))
            let session = try await RpcSession<Any>.connect(to: url) { $0.headers = ["Authorization": "Bearer alice-token"] }
            let me: String = try await session.api.whoAmI()
            #expect(me == "alice")
            try await waitUntil("the client's tables to settle") { session.getStats() == RpcStats(imports: 1, exports: 1) }
            await session.close()
        }
    }

    @Test("A Cap'n Web HTTP batch's main object is made for the authenticated user")
    func capnWebBatch() async throws {
        try await MountedApp.run { port in
            let url = try #require(URL(string: "http://127.0.0.1:\(port)/rpc"))
            let me = try await RpcSession<Any>.batch(url: url, configure: { $0.headers = ["Authorization": "Bearer bob-token"] }) { api in
                let me: String = try await api.whoAmI()
                return me
            }
            #expect(me == "bob")
        }
    }

    @Test("Without a token, the application's middleware refuses Cap'n Web's WebSocket and batch with 401")
    func capnWebRefused() async throws {
        try await MountedApp.run { port in
            let webSocket = try #require(URL(string: "ws://127.0.0.1:\(port)/rpc"))
            let refusal = await #expect(throws: CapnWebCore.RpcError.self) {
                _ = try await RpcSession<Any>.connect(to: webSocket)
            }
            #expect(String(describing: refusal).contains("401"))
            let batch = try #require(URL(string: "http://127.0.0.1:\(port)/rpc"))
            let batchRefusal = await #expect(throws: CapnWebCore.RpcError.self) {
                try await RpcSession<Any>.batch(url: batch) { api in
                    let _: String = try await api.whoAmI()
                }
            }
            #expect(String(describing: batchRefusal).contains("401"))
        }
    }

    @Test("RivetKitClient reaches the gateway's HTTP routes and realtime WebSocket through the mount")
    func rivetKit() async throws {
        try await MountedApp.run { port in
            var config = ClientConfig(endpoint: "http://127.0.0.1:\(port)/rivet")
            config.headers = ["authorization": "Bearer alice-token"]
            // The realtime socket carries the application's credentials too.
            var transports = ClientTransports.network
            transports.openSocket = { url, subprotocols in
                var configuration = WebSocketClientConfiguration()
                configuration.subprotocols = subprotocols
                configuration.headers = MountedApp.alice
                let transport = try await WebSocketClient.connect(to: url, configuration: configuration)
                return (transport, transport.subprotocol)
            }
            let client = RivetKitClient(config, transports: transports)
            let handle = client.getOrCreate("counter", key: ["vapor"])
            let viaHTTP = try await handle.action("increment", args: [2])
            #expect(viaHTTP == 2)
            let connection = handle.connect()
            connection.start()
            let viaWebSocket = try await connection.action("increment", args: [3])
            #expect(viaWebSocket == 5)
            await connection.dispose()
            await client.close()
        }
    }

    @Test("Without a token, the application's middleware refuses the RivetKit gateway's routes and WebSocket with 401; with one, its routes answer under a grouped path too")
    func rivetKitRefused() async throws {
        try await MountedApp.run { port in
            let http = try RpcTransportNIO.HTTPClient(baseURL: "http://127.0.0.1:\(port)")
            let metadata = try await http.execute(HTTPClientRequest(method: .GET, path: "/rivet/metadata"))
            #expect(metadata.status == 401)
            let allowed = try await http.execute(
                HTTPClientRequest(method: .GET, path: "/rivet/metadata", headers: MountedApp.alice))
            #expect(allowed.status == 200)
            let grouped = try await http.execute(
                HTTPClientRequest(method: .GET, path: "/v1/mounted/actors/metadata?x=1", headers: MountedApp.alice))
            #expect(grouped.status == 200)
            #expect(grouped.body == allowed.body)
            let outside = try await http.execute(
                HTTPClientRequest(method: .GET, path: "/v1/mounted/actors/nowhere", headers: MountedApp.alice))
            #expect(outside.status == 404)
            await http.close()
            var configuration = WebSocketClientConfiguration()
            configuration.subprotocols = ["rivet"]
            do {
                _ = try await WebSocketClient.connect(
                    to: "ws://127.0.0.1:\(port)/rivet/gateway/none/connect", configuration: configuration)
                Issue.record("the gateway's WebSocket was opened without a token")
            } catch let error as TransportError {
                #expect(error.code == .upgradeRejected)
                #expect(error.httpStatus == 401)
            }
        }
    }

    @Test("A Tinyvex client's connection gets its identity from the request's authenticated user")
    func tinyvex() async throws {
        try await MountedApp.run { port in
            let url = try #require(URL(string: "ws://127.0.0.1:\(port)/tinyvex"))
            var configuration = WebSocketClientConfiguration()
            configuration.headers = MountedApp.alice
            let webSocket = configuration
            let me = try await TinyvexClient.withClient(
                endpoint: url, transportFactory: { _ in try await WebSocketClient.connect(to: url.absoluteString, configuration: webSocket) }
            ) { client in
                try await client.query("me", params: MountedApp.NoParams(), as: String.self)
            }
            #expect(me == "alice")
        }
    }

    @Test("Without a token, the application's middleware refuses Tinyvex's WebSocket with 401")
    func tinyvexRefused() async throws {
        try await MountedApp.run { port in
            do {
                _ = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(port)/tinyvex")
                Issue.record("Tinyvex's WebSocket was opened without a token")
            } catch let error as TransportError {
                #expect(error.code == .upgradeRejected)
                #expect(error.httpStatus == 401)
            }
        }
    }
}
