@_spi(RpcImplementation) public import RpcTransport

/// RpcDo's connection: a ``RpcTransport/ReconnectingConnection`` (which opens, watches,
/// probes and reconnects the transport) with RpcDo's settings, errors and observable
/// ``status``.
///
/// Protocol-agnostic: the ``Handler`` decides what happens on each new transport. With
/// ``Handler/messages(_:)`` the connection reads the transport and passes every message on
/// (and ``send(_:)`` writes, holding messages while offline per the ``OfflinePolicy``); with
/// ``Handler/transports(_:)`` a protocol engine takes each transport over (the RpcDo client
/// starts a Cap'n Web session on it).
///
/// ```swift
/// try await ManagedConnection.withConnection(
///     configuration: config,
///     factory: { headers in try await openWebSocket(headers: headers) },
///     handler: .messages { message in print(message.text ?? "") }
/// ) { connection in
///     try await connection.send(.text("hello"))
/// }
/// ```
///
/// States are published as ``stateUpdates()`` and as the observable ``status``: `connecting`
/// (from creation until the first connection opens), `connected`, `reconnecting(attempt:)` after a loss, and `disconnected` when
/// closed (`nil`) or given up (the last error). Headers changed with ``updateHeader(_:value:)``
/// are passed to the factory on the next (re)connect.
///
/// Lifecycle: ``start()`` runs one supervising task that ``close()`` cancels and awaits; use
/// ``withConnection(configuration:factory:handler:isolation:_:)`` so nothing outlives the scope.
public final class ManagedConnection: Sendable {
    /// Opens a transport to the peer, with the headers current at that moment.
    public typealias TransportFactory = ReconnectingConnection.TransportFactory

    /// What the connection does with each new transport.
    public typealias Handler = ReconnectingConnection.Handler

    /// An open transport and its generation.
    typealias Link = ReconnectingConnection.Link

    /// The settings.
    public let configuration: ManagedConnectionConfiguration
    /// The observable snapshot of ``state``.
    public let status = ConnectionStatus()
    /// The connection underneath, which does the work.
    public let connection: ReconnectingConnection

    /// Creates a connection; nothing is opened until ``start()``.
    public init(configuration: ManagedConnectionConfiguration = ManagedConnectionConfiguration(), factory: @escaping TransportFactory, handler: Handler) {
        self.configuration = configuration
        self.connection = ReconnectingConnection(configuration: configuration.connectionConfiguration, factory: factory, handler: handler)
        let status = self.status
        connection.onStateChange { status.update($0) }
    }

    /// Starts a connection, runs `body` with it, and closes it when `body` returns or throws.
    ///
    /// - Throws: ``ManagedConnectionError`` when the first connection cannot be opened, or
    ///   what `body` throws.
    public static func withConnection<T>(
        configuration: ManagedConnectionConfiguration = ManagedConnectionConfiguration(),
        factory: @escaping TransportFactory,
        handler: Handler,
        isolation: isolated (any Actor)? = #isolation,
        _ body: (ManagedConnection) async throws -> T
    ) async throws -> T {
        let connection = ManagedConnection(configuration: configuration, factory: factory, handler: handler)
        try await connection.start()
        let outcome: Result<T, any Error>
        do {
            outcome = .success(try await body(connection))
        } catch {
            outcome = .failure(error)
        }
        await connection.close()
        return try outcome.get()
    }

    // MARK: State

    /// The current state.
    public var state: ConnectionState {
        connection.state
    }

    /// The headers the next (re)connect passes to the factory.
    public var headers: [String: String] {
        connection.headers
    }

    /// Sets (or with `nil`, removes) a header; it applies on the next (re)connect.
    public func updateHeader(_ name: String, value: String?) {
        connection.updateHeader(name, value: value)
    }

    /// The states from now on, starting with the current one; the stream finishes when the
    /// connection is closed.
    public func stateUpdates() -> AsyncStream<ConnectionState> {
        connection.stateUpdates()
    }

    /// Runs `handler` with the generation of each transport that is lost.
    func onLoss(_ handler: @escaping @Sendable (UInt64) -> Void) {
        connection.onLoss(handler)
    }

    // MARK: Lifecycle

    /// Opens the first connection and starts keeping it alive; returns once it is open.
    ///
    /// Calling it while running waits for the connection in progress (per the
    /// ``OfflinePolicy``); after ``close()`` (or after reconnecting gave up) it starts again.
    ///
    /// - Throws: ``ManagedConnectionError`` with ``ManagedConnectionError/Code/notConnected``
    ///   when the first transport cannot be opened (the factory's error is in the message).
    public func start() async throws(ManagedConnectionError) {
        do {
            try await connection.start()
        } catch {
            throw ManagedConnectionError(.notConnected, "\(error)")
        }
    }

    /// Stops reconnecting, closes the transport, fails every queued message and waiting call
    /// with ``ManagedConnectionError/Code/closed`` and publishes `disconnected(nil)`.
    public func close() async {
        await connection.close()
    }

    /// Ends the connection without waiting, for an owner that goes away without calling
    /// ``close()``.
    func abandon() {
        connection.abandon()
    }

    /// Drops the open transport and opens a new one at once with the current headers; work in
    /// flight on the old one fails as on any loss. When the new connection cannot be opened,
    /// reconnecting goes on with the backoff. Does nothing when not started.
    public func reconnect() async {
        try? await connection.reconnect(keepTryingOnFailure: true)
    }

    // MARK: Sending and waiting

    /// Sends `message` on the open transport, or holds it until the next connection per the
    /// ``OfflinePolicy``.
    ///
    /// - Throws: ``ManagedConnectionError``: `notConnected` when not started, given up, or the
    ///   policy is ``OfflinePolicy/fail``; `offlineQueueFull` when the queue holds its limit.
    public func send(_ message: TransportMessage) async throws(ManagedConnectionError) {
        do {
            try await connection.send(message)
        } catch {
            throw Self.managedError(error)
        }
    }

    /// Waits until connected (per the offline policy) and returns the open transport.
    func link() async throws(ManagedConnectionError) -> Link {
        do {
            return try await connection.link()
        } catch {
            throw Self.managedError(error)
        }
    }

    /// Waits until the connection is open (per the ``OfflinePolicy``).
    ///
    /// - Throws: ``ManagedConnectionError`` as ``send(_:)``, or `cancelled`.
    public func waitUntilConnected() async throws(ManagedConnectionError) {
        _ = try await link()
    }

    /// How many times a caller has begun waiting for the connection because it was not
    /// connected (a request or call made offline, or retried after timing out unsent). Lets
    /// tests observe such a wait instead of guessing at its timing.
    var offlineWaitCount: UInt64 {
        connection.offlineWaitCount
    }

    /// Whether the connection is started and still trying (not yet started, closed or given up).
    var isRunning: Bool {
        connection.isRunning
    }

    /// The open transport, if connected.
    public var currentTransport: (any MessageTransport)? {
        connection.currentTransport
    }

    /// A connection error as RpcDo reports it.
    static func managedError(_ error: TransportError) -> ManagedConnectionError {
        switch error.code {
        case .notConnected: ManagedConnectionError(.notConnected, error.message)
        case .offlineQueueFull: ManagedConnectionError(.offlineQueueFull, error.message)
        case .cancelled: ManagedConnectionError(.cancelled, error.message)
        case .closed where error.closeCode == nil: ManagedConnectionError(.closed, error.message)
        case .closed, .keepaliveTimeout, .ioError: ManagedConnectionError(.connectionLost, error.message)
        default: ManagedConnectionError(.invalidRequest, error.message)
        }
    }
}
