/// How a WebSocket connection checks that its peer is still there: a ping every ``interval``,
/// and failure with ``TransportError/Code/keepaliveTimeout`` when no pong comes back
/// within ``timeout``.
///
/// A transport with these settings (client or server side) runs the
/// ``KeepaliveScheduler`` on itself until it closes. A
/// ``ReconnectingConnection`` takes its own ``Keepalive`` instead, and
/// runs the same scheduler on each transport it opens.
///
/// ```swift
/// var configuration = WebSocketClientConfiguration()
/// configuration.keepalive = WebSocketKeepalive(interval: .seconds(20), timeout: .seconds(5))
/// ```
public struct WebSocketKeepalive: Sendable, Hashable {
    /// The time between two pings. Default 30 seconds.
    public var interval: Duration
    /// How long a pong may take before the connection is considered dead. Default 10 seconds.
    public var timeout: Duration

    /// Creates keepalive settings.
    public init(interval: Duration = .seconds(30), timeout: Duration = .seconds(10)) {
        self.interval = interval
        self.timeout = timeout
    }
}
