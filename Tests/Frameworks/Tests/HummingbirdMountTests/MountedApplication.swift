import CapnWeb
import CapnWebConformance
import CapnWebHummingbird
import Foundation
import Hummingbird
import RpcTransportHummingbird
import Logging
import RpcTesting
import RpcWire
import RivetKitHummingbird
import RivetKitServer
import TinyvexHummingbird
import TinyvexServer

/// One Hummingbird application on 127.0.0.1 with an auth middleware, an ordinary route and the
/// three protocols mounted: Cap'n Web at `/rpc` (and with the conformance test API at
/// `/test-api`), the RivetKit gateway under `/rivet`, Tinyvex at `/tinyvex`.
struct MountedApplication: Sendable {
    /// The port the application listens on.
    let port: Int
    /// The paths of the requests the auth middleware refused.
    let refusals: Recorder<String>

    var rpcWebSocketURL: URL { url("ws", "/rpc") }
    var rpcBatchURL: URL { url("http", "/rpc") }
    var testAPIWebSocketURL: URL { url("ws", "/test-api") }
    var baseURL: String { "http://127.0.0.1:\(port)" }
    var rivetEndpoint: String { "http://127.0.0.1:\(port)/rivet" }
    var tinyvexURL: URL { url("ws", "/tinyvex") }

    private func url(_ scheme: String, _ path: String) -> URL {
        URL(string: "\(scheme)://127.0.0.1:\(port)\(path)") ?? URL(filePath: "/")
    }

    /// Builds the application, runs it while `body` runs, then stops it and the servers behind
    /// the mounts.
    static func run<Value: Sendable>(_ body: @escaping @Sendable (MountedApplication) async throws -> Value) async throws -> Value {
        try await TinyvexServer.withEmbeddedServer(schema: schema) { tinyvex in
            var configuration = ActorServerConfiguration()
            configuration.sleepTimeout = .seconds(60)
            return try await withActorGateway(
                registry: DemoActors.registry, store: try SQLiteActorStore.inMemory(), configuration: configuration
            ) { gateway in
                let router = Router(context: AppRequestContext.self)
                let refusals = Recorder<String>()
                router.add(middleware: BearerAuthMiddleware(refusals: refusals))
                router.get("/hello") { _, context in "hello \(context.user ?? "nobody")" }
                router.addCapnWeb("/rpc") { _, context in Api(user: context.user ?? "nobody") }
                router.addCapnWeb("/test-api") { _, _ in TestAPI() }
                router.addRivetKit("/rivet", gateway: gateway)
                router.addTinyvex("/tinyvex", server: tinyvex) { token, _, context in
                    // A token names whoever it names; without one, the request's user.
                    token.map { "token:\($0)" } ?? context.user
                }
                return try await withRunningApplication(router: router) { port in
                    try await body(MountedApplication(port: port, refusals: refusals))
                }
            }
        }
    }

    /// A schema whose query tells who is asking and whose mutation stores a note.
    static var schema: TinyvexSchema {
        var schema = TinyvexSchema()
        schema.query("whoami") { (context, _: [String: String]) in context.identity ?? "" }
        schema.query("notes.count") { (context, _: [String: String]) in try context.all("notes").count }
        schema.mutation("notes.add") { (context, note: [String: String]) in
            try context.insert("notes", ["text": .string(note["text"] ?? "")])
        }
        return schema
    }
}

/// The main object each Cap'n Web session gets: it knows its session's user.
final class Api: RpcTarget {
    let user: String

    init(user: String) {
        self.user = user
    }

    func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
        switch method {
        case "whoami":
            return .string(user)
        case "square":
            let n = try arguments.decode(0, as: Double.self)
            return .double(n * n)
        default:
            throw RpcErrorValue.notAFunction(method)
        }
    }
}

/// Runs a Hummingbird application on 127.0.0.1 at a free port while `body` runs, then stops it.
func withRunningApplication<Value: Sendable>(
    router: Router<AppRequestContext>,
    _ body: @escaping @Sendable (_ port: Int) async throws -> Value
) async throws -> Value {
    let (ports, portContinuation) = AsyncStream<Int>.makeStream()
    let application = Application(
        router: router,
        server: .http1WebSocketTransports(webSocketRouter: router),
        configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
        onServerRunning: { channel in
            portContinuation.yield(channel.localAddress?.port ?? 0)
            portContinuation.finish()
        },
        logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
    return try await withThrowingTaskGroup(of: Value?.self) { group in
        group.addTask {
            try await application.runService(gracefulShutdownSignals: [])
            return nil
        }
        var port = 0
        for await bound in ports { port = bound }
        group.addTask { try await body(port) }
        defer { group.cancelAll() }
        while let finished = try await group.next() {
            if let value = finished { return value }
        }
        throw CancellationError()
    }
}
