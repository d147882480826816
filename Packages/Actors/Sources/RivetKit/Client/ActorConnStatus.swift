/// The state of an actor's realtime connection, as React's `useActor` reports it.
public enum ActorConnStatus: String, Sendable {
    /// Not connecting: before the first connection, after disposal, while disabled, or after
    /// an open failure that is not retried.
    case idle
    /// Opening the connection; `Init` has not arrived yet.
    case connecting
    /// `Init` arrived: actions go out at once.
    case connected
    /// The connection was lost after having been connected; reconnecting.
    case disconnected
}
