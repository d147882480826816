public import RpcTransport

/// A liveness check for a managed connection (``ManagedConnectionConfiguration``): every ``interval`` the ``probe`` runs on the
/// open transport; when it throws or takes longer than ``timeout`` the transport is closed
/// and the connection reconnects.
///
/// ```swift
/// config.heartbeat = Heartbeat(interval: .seconds(15), timeout: .seconds(5)) { transport in
///     try await pingOverMyProtocol(transport)
/// }
/// ```
///
/// It runs through the transport layer's one ``KeepaliveScheduler``, as the
/// application-level probe of a ``Keepalive``. For the frame-level ping/pong of a
/// WebSocket, set ``ManagedConnectionConfiguration/keepalive`` instead; a heartbeat here also
/// checks the protocol above the transport.
public struct Heartbeat: Sendable {
    /// The time between probes (default 30 s).
    public var interval: Duration
    /// How long a probe may take (default 10 s).
    public var timeout: Duration
    /// Sends a ping and waits for its pong.
    public var probe: @Sendable (any MessageTransport) async throws -> Void

    /// Creates a heartbeat.
    public init(
        interval: Duration = .seconds(30),
        timeout: Duration = .seconds(10),
        probe: @escaping @Sendable (any MessageTransport) async throws -> Void
    ) {
        self.interval = interval
        self.timeout = timeout
        self.probe = probe
    }
}
