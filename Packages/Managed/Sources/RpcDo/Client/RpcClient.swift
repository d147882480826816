#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
internal import CapnWeb
internal import NIOHTTP1
public import RpcTransport
internal import RpcTransportNIO

/// A managed Cap'n Web client: one connection kept alive (reconnecting with backoff), calls
/// through the pipelining ``api`` proxy, timeouts, safe retries and interceptors.
///
/// ```swift
/// let client = try RpcClient(url: "wss://api.example.com")
/// try await client.connect()
/// let name: String = try await client.api.users.get(id: "123").profile.displayName
/// await client.disconnect()
/// ```
///
/// Prefer ``withConnection(to:isolation:operation:)``, which always disconnects. A connected
/// client runs one supervising task; ``disconnect()`` stops it and waits for it.
///
/// While the connection is being re-established, calls wait for it (per
/// ``RpcClientConfiguration/offlinePolicy``) within their timeout; see ``RpcRef`` for which
/// failed calls are retried.
public actor RpcClient {
    /// The settings the client was made with.
    public let configuration: RpcClientConfiguration
    nonisolated let core: ClientCore
    /// The supervised connection the client's sessions run on.
    nonisolated let connection: ReconnectingConnection
    /// The observable snapshot of the connection's state.
    private nonisolated let connectionStatus = ConnectionStatus()
    private let urlProblem: RpcError?
    /// The last header change's reconnect; the next one waits for it, so each one applies. The
    /// ``updateHeader(_:value:)`` call that started it awaits it.
    private var headerRefresh: Task<Void, Never>?

    /// Creates a client for `configuration` (not connected yet). A URL that is not `ws://` or
    /// `wss://` with a host makes ``connect()`` fail with ``RpcError/invalidArgument(_:)``.
    public init(configuration: RpcClientConfiguration) {
        let urls = [configuration.url] + configuration.fallbackURLs
        let problem = urls.lazy.compactMap { Self.problem(with: $0, tls: configuration.tls) }.first
        let rotation = EndpointRotation(urls.map(\.absoluteString))
        let webSocket = Self.webSocketConfiguration(configuration)
        self.init(configuration: configuration, urlProblem: problem) { headers in
            var webSocket = webSocket
            for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
                webSocket.headers.add(name: name, value: value)
            }
            // One attempt tries each server once, from the current one on.
            var failure: (any Error)?
            for _ in 0 ..< rotation.count {
                let (index, url) = rotation.current
                do {
                    return try await WebSocketClient.connect(to: url, configuration: webSocket)
                } catch {
                    rotation.failed(index)
                    failure = error
                    if Task.isCancelled { break }
                }
            }
            throw failure ?? TransportError(code: .connectFailed, message: "no server to connect to")
        }
    }

    /// Creates a client for `url` (not connected yet).
    ///
    /// - Throws: ``RpcError/invalidArgument(_:)`` when `url` is not a `ws://` or `wss://` URL
    ///   with a host.
    public init(url: String) throws(RpcError) {
        guard let parsed = URL(string: url) else {
            throw .invalidArgument("'\(url)' is not a URL")
        }
        if let problem = Self.problem(with: parsed) { throw problem }
        self.init(configuration: RpcClientConfiguration(url: parsed))
    }

    /// Creates a client whose connections come from `transportFactory` (an in-memory pair, a
    /// custom transport) instead of a WebSocket to ``RpcClientConfiguration/url``. The factory
    /// receives the current headers on every (re)connect.
    public init(configuration: RpcClientConfiguration, transportFactory: @escaping ReconnectingConnection.TransportFactory) {
        self.init(configuration: configuration, urlProblem: nil, factory: transportFactory)
    }

    private init(configuration: RpcClientConfiguration, urlProblem: RpcError?, factory: @escaping ReconnectingConnection.TransportFactory) {
        self.configuration = configuration
        self.urlProblem = urlProblem
        let settings = ManagedChannel<RpcError>.Settings(
            requestTimeout: configuration.callTimeout,
            maxRetries: configuration.retries,
            backoff: configuration.retryBackoff,
            maxRetryDelay: configuration.maxRetryDelayDuration,
            interceptors: configuration.interceptors,
            failsOffline: configuration.offlinePolicy == .fail)
        let core = ClientCore(settings: settings, logger: configuration.logger, observability: configuration.observability)
        let connectTimeout = RpcClientConfiguration.duration(configuration.connectTimeout, default: 10)
        let managed = ManagedConnectionConfiguration(
            reconnect: configuration.reconnectPolicy,
            heartbeat: nil,
            keepalive: Self.keepalive(configuration),
            // The WebSocket's own connect and handshake timeouts apply one after the other.
            connectTimeout: connectTimeout * 2,
            offlinePolicy: configuration.offlinePolicy,
            requestTimeout: configuration.callTimeout,
            headers: configuration.headers,
            interceptors: [],
            logger: configuration.logger)
        var connectionConfiguration = managed.connectionConfiguration
        connectionConfiguration.protocolName = "rpcdo"
        connectionConfiguration.observability = configuration.observability
        let connection = ReconnectingConnection(
            configuration: connectionConfiguration, factory: factory,
            handler: .transports { [weak core] transport, generation in
                core?.attach(transport, generation: generation)
            })
        let status = connectionStatus
        connection.onStateChange { status.update($0) }
        core.bind(ManagedChannel(connection: connection, settings: settings))
        self.core = core
        self.connection = connection
    }

    /// A client dropped without ``disconnect()`` still ends its connection: nothing it started
    /// keeps running, though the close handshake finishes after the client is gone.
    deinit {
        connection.abandon()
    }

    private static func problem(with url: URL, tls: TLSClientConfiguration? = nil) -> RpcError? {
        let scheme = url.scheme?.lowercased() ?? ""
        guard scheme == "ws" || scheme == "wss" else {
            return .invalidArgument("an RpcDo URL must start with ws:// or wss://, not '\(url.absoluteString)'")
        }
        guard let host = url.host, !host.isEmpty else {
            return .invalidArgument("the URL '\(url.absoluteString)' has no host")
        }
        if tls != nil, scheme == "ws" {
            return .invalidArgument("TLS settings need a wss:// URL, not '\(url.absoluteString)'")
        }
        return nil
    }

    private static func webSocketConfiguration(_ configuration: RpcClientConfiguration) -> WebSocketClientConfiguration {
        var webSocket = WebSocketClientConfiguration()
        let connectTimeout = RpcClientConfiguration.duration(configuration.connectTimeout, default: 10)
        webSocket.connectTimeout = connectTimeout
        webSocket.handshakeTimeout = connectTimeout
        webSocket.tls = configuration.tls
        return webSocket
    }

    /// WebSocket pings every `keepaliveInterval`, run by the connection's keepalive scheduler.
    private static func keepalive(_ configuration: RpcClientConfiguration) -> Keepalive? {
        guard let interval = configuration.keepaliveInterval, interval.isFinite, interval > 0 else { return nil }
        return Keepalive(
            interval: RpcClientConfiguration.duration(interval, default: 30),
            timeout: RpcClientConfiguration.duration(configuration.keepaliveTimeout, default: 10))
    }

    // MARK: Connection

    /// Whether the connection is open now.
    public var isConnected: Bool {
        connection.state.isConnected
    }

    /// Opens the connection; returns once it is open. Calling it while connected does nothing.
    ///
    /// - Throws: ``RpcError/invalidArgument(_:)`` for a bad URL, ``RpcError/connectionLost(_:)``
    ///   when the server cannot be reached.
    public func connect() async throws(RpcError) {
        if let urlProblem { throw urlProblem }
        do {
            try await connection.start()
        } catch {
            throw ErrorMapping.map(ManagedConnectionError(.notConnected, "\(error)"))
        }
    }

    /// Closes the connection and stops reconnecting; calls waiting for the connection fail
    /// with ``RpcError/connectionLost(_:)``. The client can ``connect()`` again.
    public func disconnect() async {
        await connection.close()
        await core.detachAll()
    }

    /// The connection's states (`connecting`, `connected`, `reconnecting(attempt:)`,
    /// `disconnected`), starting with the current one.
    public nonisolated var connectionStates: AsyncStream<RpcTransport.ConnectionState> {
        connection.stateUpdates()
    }

    /// The connection's state as an observable snapshot.
    public nonisolated var status: ConnectionStatus {
        connectionStatus
    }

    /// Sets (or with `nil`, removes) a header of the WebSocket upgrade, and makes the next call
    /// carry it: a connected client reconnects with it before that call is sent.
    ///
    /// ```swift
    /// await client.updateHeader("Authorization", value: "Bearer \(newToken)")
    /// let user: User = try await client.api.users.current   // on a connection with newToken
    /// ```
    ///
    /// The reconnect cuts no call: calls made meanwhile wait for the new connection, and calls
    /// already sent finish on the old one (each within its timeout) before it is closed; it
    /// returns once the new connection is open (or, when it cannot be opened, once the client
    /// has gone back to reconnecting with its backoff). Streams being read end, as on any
    /// reconnect. A client that is reconnecting tries the new header at once; one that is not
    /// connected (never, or after ``disconnect()``) keeps it for its next ``connect()``.
    public func updateHeader(_ name: String, value: String?) async {
        connection.updateHeader(name, value: value)
        let previous = headerRefresh
        let core = self.core
        // Owned by this call, which awaits it before it returns (and keeps the client alive
        // meanwhile), so it never outlives the client; `headerRefresh` only lets the next call,
        // made while this one waits (the actor is re-entered), wait for it too before its own.
        let refresh = Task {
            await previous?.value
            await core.reconnectForHeaders()
        }
        headerRefresh = refresh
        await refresh.value
    }

    /// Drops the open connection and opens a new one at once (``updateHeader(_:value:)`` does
    /// this itself, more gently). Calls in flight fail (or are retried) as on any connection
    /// loss; when the new connection cannot be opened the client
    /// goes on reconnecting with its backoff.
    public func reconnect() async {
        try? await connection.reconnect(keepTryingOnFailure: true)
    }

    // MARK: Calls

    /// The server's main object: build chains on it and await them.
    public nonisolated var api: RpcRef<Any> {
        RpcRef<Any>(core: core, expression: .root)
    }

    /// Calls `method` (dots separate members: `users.get`) with positional parameters.
    ///
    /// - Throws: ``RpcError``; ``RpcError/invalidArgument(_:)`` for an empty name or an empty
    ///   member.
    public func call(_ method: String, params: [RpcValue] = []) async throws(RpcError) -> RpcValue {
        try await core.call(method, params: params)
    }

    /// Sends `request` and returns its answer; a failure becomes the response's error (code
    /// -32000 with the error's description) instead of being thrown.
    public func send(_ request: RpcRequest) async -> RpcResponse {
        do {
            let result = try await core.call(request.method, params: request.params)
            return RpcResponse(id: request.id, result: result)
        } catch {
            return RpcResponse(id: request.id, error: RpcResponseError(code: -32000, message: "\(error)"))
        }
    }

    // MARK: Scoped use

    /// Connects to `url`, runs `operation`, and disconnects when it returns or throws.
    ///
    /// - Throws: What ``init(url:)`` and ``connect()`` throw, or what `operation` throws.
    public static func withConnection<T>(
        to url: String,
        isolation: isolated (any Actor)? = #isolation,
        operation: (RpcClient) async throws -> T
    ) async throws -> T {
        let client = try RpcClient(url: url)
        return try await run(client, isolation: isolation, operation)
    }

    /// Connects with `configuration`, runs `operation`, and disconnects when it returns or
    /// throws.
    public static func withConnection<T>(
        configuration: RpcClientConfiguration,
        isolation: isolated (any Actor)? = #isolation,
        operation: (RpcClient) async throws -> T
    ) async throws -> T {
        try await run(RpcClient(configuration: configuration), isolation: isolation, operation)
    }

    private static func run<T>(
        _ client: RpcClient,
        isolation: isolated (any Actor)?,
        _ operation: (RpcClient) async throws -> T
    ) async throws -> T {
        try await client.connect()
        let outcome: Result<T, any Error>
        do {
            outcome = .success(try await operation(client))
        } catch {
            outcome = .failure(error)
        }
        await client.disconnect()
        return try outcome.get()
    }

    /// Runs `execute` over HTTP batch: every call awaited in it travels in one POST.
    ///
    /// ```swift
    /// let (user, posts) = try await RpcClient.batch(url: "https://api.example.com") { api in
    ///     async let user: User = api.users.get(id: userId)
    ///     async let posts: [Post] = api.posts.forUser(id: userId)
    ///     return try await (user, posts)
    /// }
    /// ```
    ///
    /// Calls are sent when they are awaited; the batch leaves once no new call has come for
    /// `batchDelay`. Refs are dead after `execute` returns. Batch calls are not retried.
    ///
    /// - Parameters:
    ///   - url: An `http://` or `https://` URL.
    ///   - timeout: How long each call may take, in seconds (default 30).
    ///   - batchDelay: How long the batch waits for another call before it leaves (default
    ///     50 ms); calls started together (`async let`) must all be awaited within it.
    ///   - isolation: The actor `execute` runs on; the caller's by default.
    ///   - execute: Makes the calls on the server's main object.
    /// - Throws: ``RpcError/invalidArgument(_:)`` for a URL that is not `http://` or
    ///   `https://`, or what `execute` throws.
    public static func batch<T>(
        url: String,
        timeout: TimeInterval = 30,
        batchDelay: Duration = .milliseconds(50),
        isolation: isolated (any Actor)? = #isolation,
        execute: (RpcRef<Any>) async throws -> T
    ) async throws -> T {
        guard let parsed = URL(string: url) else {
            throw RpcError.invalidArgument("'\(url)' is not a URL")
        }
        let callTimeout = RpcClientConfiguration.duration(timeout, default: 30)
        do {
            return try await RpcSession<Any>.batch(url: parsed, configure: { configuration in
                configuration.batchDelay = batchDelay
                configuration.timeout = callTimeout
            }) { root in
                let core = ClientCore(
                    settings: ManagedChannel<RpcError>.Settings(
                        requestTimeout: callTimeout, maxRetries: 0, backoff: Backoff(), maxRetryDelay: .zero),
                    logger: RpcClientConfiguration(url: parsed).logger,
                    source: .fixed(root))
                return try await execute(RpcRef<Any>(core: core, expression: .root))
            }
        } catch let error as CapnWeb.RpcError {
            throw ErrorMapping.map(error)
        }
    }
}
