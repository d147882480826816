import Foundation
import NIOHTTP1
import RivetKit
@testable import RivetKitServer
import RpcDoTesting
import RpcTransportNIO
import Synchronization

/// The actor server reached in process: a client given ``transports`` opens each realtime
/// connection as one end of an in-memory transport pair whose other end the server core serves,
/// and hands each HTTP request to the core's router. Nothing listens on a port, nothing waits
/// on a clock.
///
/// Faults are switched on the server: ``dropConnections()`` cuts every open connection (1006,
/// as a socket that drops), ``accepting`` false refuses new ones (as a server that is down),
/// and ``Mode/silent`` / ``Mode/hanging`` stand for a server that accepts the socket and says
/// nothing, or never answers the upgrade.
final class InProcessServer: Sendable {
    /// What the server does with a new realtime connection.
    enum Mode: Sendable {
        /// Serve it (the actor server core).
        case serve
        /// Accept the upgrade and never send anything; the server end's closure is recorded.
        case silent
        /// Never answer the upgrade (the open waits until cancelled).
        case hanging
        /// Hand the server end to a closure, with the connection's number (from 1).
        case handle(@Sendable (any MessageTransport, Int) async -> Void)
        /// Serve it once the closure returns (the actor's `Init` waits until then).
        case serveAfter(@Sendable () async -> Void)
    }

    private struct State {
        var mode: Mode = .serve
        var accepting = true
        var opened = 0
        var open: [ObjectIdentifier: InMemoryTransport] = [:]
        var closures: [TransportClosure] = []
        var paths: [String] = []
    }

    /// The server core: directory, store, routes.
    let core: ActorServerCore
    private let state = Mutex(State())
    private let tasks = OwnedTasks<Int>()

    init(registry: ActorRegistry = DemoActors.registry, store: any ActorStore, configuration: ActorServerConfiguration) {
        self.core = ActorServerCore(registry: registry, store: store, configuration: configuration)
    }

    /// Runs `body` with an in-process server and stops it afterwards (its connections closed,
    /// their serving awaited), even when `body` throws.
    static func with(
        registry: ActorRegistry = DemoActors.registry, store: (any ActorStore)? = nil, token: String? = nil,
        configure: (inout ActorServerConfiguration) -> Void = { _ in },
        isolation: isolated (any _Concurrency.Actor)? = #isolation,
        _ body: (InProcessServer) async throws -> Void
    ) async throws {
        var configuration = ServerHarness.configuration(token: token)
        configure(&configuration)
        let server = InProcessServer(
            registry: registry, store: try store ?? SQLiteActorStore.inMemory(), configuration: configuration)
        // The server's own idle check, as `withActorServer` runs it.
        server.tasks.spawn(0) { [core = server.core] in await core.sleepIdleActors() }
        let outcome: Result<Void, any Error>
        do {
            outcome = .success(try await body(server))
        } catch {
            outcome = .failure(error)
        }
        await server.stop()
        return try outcome.get()
    }

    /// A client of this server; `configure` adjusts its configuration (the metadata lookup is
    /// off unless it turns it on).
    func client(token: String? = nil, namespace: String? = nil, _ configure: (inout ClientConfig) -> Void = { _ in })
        -> RivetKitClient
    {
        var config = ClientConfig(endpoint: "http://in-process", token: token, namespace: namespace, disableMetadataLookup: true)
        configure(&config)
        return RivetKitClient(config, transports: transports)
    }

    /// The transports that reach this server.
    var transports: ClientTransports {
        ClientTransports(
            openSocketWithHeaders: { [self] url, subprotocols, headers in
                try await openSocket(url: url, subprotocols: subprotocols, headers: headers)
            },
            makeHTTPClient: { [core] (_: String, headers: [String: String]) throws(TransportError) -> any ActorHTTPClient in
                LocalHTTPClient(headers: headers, respond: { request in await core.respond(to: request) })
            })
    }

    /// Opens a realtime connection at `uri` (path and query) offering RivetKit's subprotocols
    /// and `params` as the connection parameters, read frame by frame.
    func connectRaw(_ uri: String, params: String? = nil) async throws -> FrameInbox {
        var subprotocols = ["rivet", "rivet_encoding.json"]
        if let params {
            subprotocols.append("rivet_conn_params." + HTTPQuery.percentEncode(params))
        }
        let (transport, _) = try await openSocket(url: "ws://in-process" + uri, subprotocols: subprotocols)
        return FrameInbox(transport)
    }

    /// Calls an action over HTTP on an actor id; returns the status and body.
    func httpAction(
        actorId: String, _ name: String, args: [JSONValue] = [], headers: HTTPHeaders = [:]
    ) async throws -> (status: Int, body: JSONValue) {
        let response = await core.respond(
            to: HTTPServerRequest(
                method: .POST, uri: "/gateway/\(actorId)/action/\(name)", headers: headers,
                body: Array(RivetMessageCodec.encodeActionRequestBody(args: args).utf8)))
        return (response.status, try JSONValue(parsing: String(decoding: response.body, as: UTF8.self)))
    }

    /// Sends a request to the server's router; returns the status and body.
    func request(_ method: HTTPMethod, _ uri: String, json: String = "") async -> (status: Int, body: String) {
        let response = await core.respond(to: HTTPServerRequest(method: method, uri: uri, body: Array(json.utf8)))
        return (response.status, String(decoding: response.body, as: UTF8.self))
    }

    /// What the server does with new connections.
    var mode: Mode {
        get { state.withLock { $0.mode } }
        set { state.withLock { $0.mode = newValue } }
    }

    /// Whether new connections are accepted; `false` fails them as an unreachable server does.
    var accepting: Bool {
        get { state.withLock { $0.accepting } }
        set { state.withLock { $0.accepting = newValue } }
    }

    /// How many realtime connections were opened (refused ones not counted).
    var openedCount: Int { state.withLock { $0.opened } }

    /// How many realtime connections are open now.
    var openCount: Int { state.withLock { $0.open.count } }

    /// The server ends of the realtime connections open now.
    var openTransports: [InMemoryTransport] { state.withLock { Array($0.open.values) } }

    /// The request paths (with query) of the realtime connections, in order.
    var paths: [String] { state.withLock { $0.paths } }

    /// How the server ends of silent connections closed, in order.
    var silentClosures: [TransportClosure] { state.withLock { $0.closures } }

    /// Cuts every open realtime connection, as when the server's sockets drop.
    func dropConnections() {
        for transport in state.withLock({ Array($0.open.values) }) { transport.disconnect() }
    }

    /// Closes every connection and waits until the server has let go of them.
    func stop() async {
        state.withLock { $0.accepting = false }
        dropConnections()
        await tasks.close()
        await core.shutdown()
    }

    private func openSocket(
        url: String, subprotocols: [String], headers: [String: String] = [:]
    ) async throws -> (any MessageTransport, subprotocol: String?) {
        let afterScheme = url.range(of: "://").map { url[$0.upperBound...] } ?? url[...]
        let uri = String(afterScheme[(afterScheme.firstIndex(of: "/") ?? afterScheme.endIndex)...])
        let path = String(uri.prefix { $0 != "?" })
        let request = WebSocketUpgradeRequest(
            path: path, uri: uri, headers: HTTPHeaders(headers.map { ($0.key, $0.value) }), remoteAddress: nil, offeredSubprotocols: subprotocols)
        let (mode, accepting) = state.withLock { ($0.mode, $0.accepting) }
        guard accepting else {
            throw TransportError(code: .connectFailed, message: "connection refused (in process)")
        }
        if case .hanging = mode {
            // Ends when the opening task is cancelled (the connect timeout or a close).
            let (never, continuation) = AsyncStream<Void>.makeStream()
            defer { continuation.finish() }
            for await _ in never {}
            throw TransportError(code: .cancelled, message: "the upgrade was never answered")
        }
        guard ActorServerCore.decideUpgrade(request) == .accept(subprotocol: "rivet") else {
            throw TransportError(code: .upgradeRejected, message: "the upgrade of \(path) was refused")
        }
        let (client, server) = InMemoryTransport.makePair()
        let key = state.withLock { state -> Int in
            state.opened += 1
            state.open[ObjectIdentifier(server)] = server
            state.paths.append(uri)
            return state.opened
        }
        let started = tasks.spawn(key) { [self] in
            switch mode {
            case .serve, .hanging:
                await core.serve(server, request: request)
            case .silent:
                let closure = await Self.closure(of: server)
                state.withLock { $0.closures.append(closure) }
            case .handle(let handler):
                await handler(server, key)
            case .serveAfter(let wait):
                await wait()
                await core.serve(server, request: request)
            }
            state.withLock { _ = $0.open.removeValue(forKey: ObjectIdentifier(server)) }
        }
        guard started else {
            throw TransportError(code: .connectFailed, message: "the server is stopped")
        }
        return (client, "rivet")
    }

    /// Reads `transport` until it closes; returns how.
    static func closure(of transport: any MessageTransport) async -> TransportClosure {
        let (events, continuation) = AsyncStream<TransportClosure>.makeStream()
        transport.start { event in
            if case .closed(let closure) = event {
                continuation.yield(closure)
                continuation.finish()
            }
        }
        for await closure in events { return closure }
        return TransportClosure(code: nil, initiatedLocally: false)
    }
}
