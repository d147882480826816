/// The state of one logical connection that may be re-established after a loss.
///
/// Shared by every layer that keeps a connection alive (sessions, managed clients, actors,
/// subscriptions), so an application observes them all the same way. The four cases are
/// exactly those of the Cap'n Web Swift API, so a `switch` over them is exhaustive:
///
/// ```swift
/// for await state in session.connectionStates {
///     switch state {
///     case .connecting: showSpinner()
///     case .connected: hideReconnectingBanner()
///     case .reconnecting(attempt: let n): showReconnectingBanner(attempt: n)
///     case .disconnected(let error): showDisconnectedAlert(error)
///     }
/// }
/// ```
///
/// A connection that exists but was not started yet reports ``connecting``: it is about to
/// make its first attempt, and nothing has failed.
public enum ConnectionState: Sendable, CustomStringConvertible {
    /// The first connection attempt is in progress or about to start (a connection that was
    /// not started yet is in this state too).
    case connecting
    /// Connected and usable.
    case connected
    /// The connection was lost; `attempt` (1-based) is the reconnect attempt in progress or waiting.
    case reconnecting(attempt: Int)
    /// Not connected and not trying: closed on purpose (`nil`) or given up after an error.
    case disconnected((any Error)?)

    /// ``disconnected(_:)`` with no error, so that a property can start out as the Cap'n Web
    /// Swift API writes it: `var connectionState: ConnectionState = .disconnected`. A value,
    /// not a fifth case: a `switch` still has exactly the four cases above.
    public static var disconnected: ConnectionState { .disconnected(nil) }

    /// ``disconnected(_:)`` with `error`, as the Cap'n Web Swift API's view models write it
    /// (`connectionState = .error(error)`). A value, not a fifth case.
    public static func error(_ error: any Error) -> ConnectionState { .disconnected(error) }

    /// Whether the connection is usable.
    public var isConnected: Bool {
        if case .connected = self { return true }
        return false
    }

    /// `connecting`, `connected`, `reconnecting(n)` or `disconnected`.
    public var description: String {
        switch self {
        case .connecting: "connecting"
        case .connected: "connected"
        case .reconnecting(let attempt): "reconnecting(\(attempt))"
        case .disconnected(let error): error.map { "disconnected(\($0))" } ?? "disconnected"
        }
    }
}
