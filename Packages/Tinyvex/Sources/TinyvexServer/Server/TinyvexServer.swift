public import NIOHTTP1
public import RpcTransport
import RpcTransportNIO
import TinyvexProtocol

/// The embedded Tinyvex server: a ``TinyvexSchema`` over a document store in SQLite, served
/// as JSON-RPC over WebSocket (docs/tinyvex-protocol.md).
///
/// ```swift
/// try await TinyvexServer.withServer(schema: schema, port: 0) { server in
///     print(server.url)   // ws://127.0.0.1:PORT/
/// }
/// ```
public final class TinyvexServer: Sendable {
    /// The version the server reports in `tinyvex/connect`.
    public static let version = "0.1.0"

    let engine: TinyvexEngine
    private let handler: ConnectionHandler
    /// The `ws://` URL clients connect to; empty for a server that only serves given transports.
    public let url: String
    /// The TCP port the server listens on; `nil` for a server that only serves given transports.
    public let port: Int?
    /// The transport server it listens on, for its graceful shutdown; `nil` for an embedded one.
    let transportServer: TransportServer?

    private init(engine: TinyvexEngine, url: String, port: Int?, transportServer: TransportServer? = nil) {
        self.engine = engine
        self.transportServer = transportServer
        self.handler = ConnectionHandler(engine: engine, serverVersion: Self.version)
        self.url = url
        self.port = port
    }

    /// Opens the store, listens on `host:port` (port 0 picks a free one), runs `body`, then
    /// closes every connection and stops, its background work included.
    ///
    /// - Parameters:
    ///   - schema: The queries, mutations and actions.
    ///   - database: Where the documents live; in memory by default.
    ///   - configuration: Limits and the auth hook.
    ///   - host: The address to bind; loopback by default.
    ///   - port: The port; 0 for any free port.
    ///   - isolation: The actor `body` runs on; the caller's by default.
    ///   - body: Runs while the server listens.
    /// - Throws: A GRDB error when the database cannot be opened, a transport error when the
    ///   port cannot be bound, or what `body` throws.
    public static func withServer<T>(
        schema: TinyvexSchema,
        database: TinyvexDatabase = .inMemory,
        configuration: TinyvexServerConfiguration = TinyvexServerConfiguration(),
        host: String = "127.0.0.1",
        port: Int = 0,
        isolation: isolated (any Actor)? = #isolation,
        _ body: (TinyvexServer) async throws -> T
    ) async throws -> T {
        let engine = try await TinyvexEngine.open(schema: schema, database: database, configuration: configuration)
        let handler = ConnectionHandler(engine: engine, serverVersion: version)
        var transportConfiguration = TransportServerConfiguration(address: .host(host, port: port))
        transportConfiguration.maxMessageSize = configuration.maxMessageBytes
        transportConfiguration.maxFrameSize = configuration.maxMessageBytes
        // Tinyvex takes no HTTP bodies: a request is an upgrade or is refused, and either is
        // read whole within requestReadTimeout, however slowly it trickles.
        transportConfiguration.requestReadTimeout = configuration.requestReadTimeout
        transportConfiguration.shutdownGracePeriod = .seconds(2)
        // The connection's one liveness probe: the WebSocket ping.
        transportConfiguration.keepalive = WebSocketKeepalive(interval: configuration.heartbeatInterval)
        let outcome: Result<T, any Error>
        do {
            outcome = .success(
                try await withTransportServer(
                    configuration: transportConfiguration,
                    onConnection: { transport, request in
                        await handler.serve(transport, traceParent: engine.traceParent(of: request.headers))
                    }
                ) { transportServer in
                    let bound = transportServer.port ?? port
                    let server = TinyvexServer(
                        engine: engine, url: "ws://\(Self.urlHost(host)):\(bound)/", port: bound,
                        transportServer: transportServer)
                    return try await body(server)
                })
        } catch {
            outcome = .failure(error)
        }
        await engine.close()
        return try outcome.get()
    }

    /// Opens the store and runs `body` with a server that listens on no socket: it serves only
    /// the transports given to ``serve(_:)`` (one end of an in-memory pair, say). Its ``url`` is
    /// empty and its ``port`` `nil`. Connections still being served when `body` ends are
    /// closed by their owners, who await ``serve(_:)``.
    ///
    /// - Parameters:
    ///   - schema: The queries, mutations and actions.
    ///   - database: Where the documents live; in memory by default.
    ///   - configuration: Limits and the auth hook.
    ///   - isolation: The actor `body` runs on; the caller's by default.
    ///   - body: Runs while the server is up.
    /// - Throws: A GRDB error when the database cannot be opened, or what `body` throws.
    public static func withEmbeddedServer<T>(
        schema: TinyvexSchema,
        database: TinyvexDatabase = .inMemory,
        configuration: TinyvexServerConfiguration = TinyvexServerConfiguration(),
        isolation: isolated (any Actor)? = #isolation,
        _ body: (TinyvexServer) async throws -> T
    ) async throws -> T {
        let engine = try await TinyvexEngine.open(schema: schema, database: database, configuration: configuration)
        let outcome: Result<T, any Error>
        do {
            outcome = .success(try await body(TinyvexServer(engine: engine, url: "", port: nil)))
        } catch {
            outcome = .failure(error)
        }
        await engine.close()
        return try outcome.get()
    }

    /// Serves one already open transport (an in-memory pair in tests, say) until it closes.
    public func serve(_ transport: any MessageTransport) async {
        await handler.serve(transport)
    }

    /// Serves one already open transport until it closes, as ``serve(_:)`` does, with the
    /// headers of the WebSocket upgrade it came with (a web framework's, say): the trace context
    /// the client sent there is the parent of the spans of its mutations and queries.
    ///
    /// - Parameters:
    ///   - transport: The open connection (a framework's WebSocket, adapted).
    ///   - upgradeHeaders: The upgrade request's headers.
    public func serve(_ transport: any MessageTransport, upgradeHeaders: HTTPHeaders) async {
        await handler.serve(transport, traceParent: engine.traceParent(of: upgradeHeaders))
    }

    /// The auth hook of one connection, given the token the client sent in `tinyvex/connect`
    /// or `tinyvex/auth.setToken`, or `nil` when it sent none. It returns the identity, or
    /// `nil`: for a token that refuses it (`TVX006`, `tokenRefused`), without one it leaves
    /// the connection without an identity. It throws as
    /// ``TinyvexServerConfiguration/Authenticate`` does.
    public typealias ConnectionAuthenticate = @Sendable (_ token: String?) async throws -> String?

    /// Serves one already open transport until it closes, with an auth hook of its own that
    /// replaces ``TinyvexServerConfiguration/authenticate`` for this connection: for a server
    /// other than ``withServer(schema:database:configuration:host:port:isolation:_:)`` (a web
    /// framework's router, with ``withEmbeddedServer(schema:database:configuration:isolation:_:)``)
    /// whose hook knows the request the connection came with.
    ///
    /// ```swift
    /// await server.serve(transport, authenticate: { token in
    ///     token.map { try await users.identity(forToken: $0) } ?? requestUser?.name
    /// })
    /// ```
    ///
    /// - Parameters:
    ///   - transport: The open connection (a framework's WebSocket, adapted).
    ///   - authenticate: This connection's auth hook.
    public func serve(_ transport: any MessageTransport, authenticate: @escaping ConnectionAuthenticate) async {
        var handler = self.handler
        handler.connectionAuthenticate = authenticate
        await handler.serve(transport)
    }

    /// Serves one already open transport until it closes with its own auth hook, as
    /// ``serve(_:authenticate:)`` does, and with the headers of the WebSocket upgrade it came
    /// with, whose trace context is the parent of the spans of its mutations and queries.
    ///
    /// - Parameters:
    ///   - transport: The open connection (a framework's WebSocket, adapted).
    ///   - upgradeHeaders: The upgrade request's headers.
    ///   - authenticate: This connection's auth hook.
    public func serve(
        _ transport: any MessageTransport, upgradeHeaders: HTTPHeaders, authenticate: @escaping ConnectionAuthenticate
    ) async {
        var handler = self.handler
        handler.connectionAuthenticate = authenticate
        await handler.serve(transport, traceParent: engine.traceParent(of: upgradeHeaders))
    }

    /// The limits and hooks the server runs with.
    public var configuration: TinyvexServerConfiguration {
        engine.configuration
    }

    /// The number of live query streams: identical subscriptions of all clients share one.
    public var liveQueryCount: Int {
        get async { await engine.streamCount }
    }

    /// How many query evaluations the server has run (first evaluations and re-runs).
    public var evaluationCount: Int {
        get async { await engine.evaluationCount }
    }

    /// The most items and bytes any connection's send queue has held (for tests of its bounds).
    var sendQueuePeak: (items: Int, bytes: Int) { engine.sendQueueStats.largest }

    private static func urlHost(_ host: String) -> String {
        host.contains(":") ? "[\(host)]" : host
    }
}
