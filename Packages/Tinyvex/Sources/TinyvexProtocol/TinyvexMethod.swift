/// The method names of the Tinyvex protocol (docs/tinyvex-protocol.md), requests and
/// notifications alike.
public enum TinyvexMethod {
    /// Request: introduces the client, optionally with a token.
    public static let connect = "tinyvex/connect"
    /// Request: starts (or resumes) a live query under a client-chosen `subId`.
    public static let subscribe = "tinyvex/subscribe"
    /// Request: ends a live query.
    public static let unsubscribe = "tinyvex/unsubscribe"
    /// Request: answers a query's current value once, without subscribing.
    public static let query = "tinyvex/query"
    /// Request: runs a mutation, idempotent by `requestId`.
    public static let mutation = "tinyvex/mutation"
    /// Request: runs an action.
    public static let action = "tinyvex/action"
    /// Request: sets or clears the connection's auth token.
    public static let setToken = "tinyvex/auth.setToken"
    /// Request: a no-op answered with `{t}`, kept for older clients that probed with it;
    /// liveness is the WebSocket ping.
    public static let ping = "tinyvex/ping"
    /// Notification: a live query's new value with its `seq`.
    public static let data = "tinyvex/data"
    /// Notification: a subscription-level error.
    public static let error = "tinyvex/error"
    /// Notification: one piece of a value too large for one `data` message, or (without a
    /// `subId`) of a `transition` too large for one message.
    public static let transitionChunk = "tinyvex/transitionChunk"
    /// Notification: every subscription of the connection that one commit (or one round of
    /// re-runs) changed, at one version, for a connection that asked for transitions.
    public static let transition = "tinyvex/transition"
}
