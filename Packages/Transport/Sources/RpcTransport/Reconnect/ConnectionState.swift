/// The state of one logical connection that may be re-established after a loss.
///
/// Shared by every layer that keeps a connection alive (sessions, managed clients, actors,
/// subscriptions), so an application observes them all the same way.
public enum ConnectionState: Sendable, CustomStringConvertible {
    /// Not started yet.
    case idle
    /// The first connection attempt is in progress.
    case connecting
    /// Connected and usable.
    case connected
    /// The connection was lost; `attempt` (1-based) is the reconnect attempt in progress or waiting.
    case reconnecting(attempt: Int)
    /// Not connected and not trying: closed on purpose (`nil`) or given up after an error.
    case disconnected((any Error)?)

    /// Whether the connection is usable.
    public var isConnected: Bool {
        if case .connected = self { return true }
        return false
    }

    /// `idle`, `connecting`, `connected`, `reconnecting(n)` or `disconnected`.
    public var description: String {
        switch self {
        case .idle: "idle"
        case .connecting: "connecting"
        case .connected: "connected"
        case .reconnecting(let attempt): "reconnecting(\(attempt))"
        case .disconnected(let error): error.map { "disconnected(\($0))" } ?? "disconnected"
        }
    }
}
