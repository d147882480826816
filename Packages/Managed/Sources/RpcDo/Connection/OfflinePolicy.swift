/// What a managed connection (``ManagedConnectionConfiguration``) does with work that arrives while it is not connected
/// (connecting or reconnecting).
public enum OfflinePolicy: Sendable, Hashable {
    /// Hold up to `limit` messages or waiting calls until the connection is back, then send them
    /// in order; beyond the limit, fail with ``ManagedConnectionError/Code/offlineQueueFull``.
    case queue(limit: Int)
    /// Fail at once with ``ManagedConnectionError/Code/notConnected``.
    case fail

    /// Queue up to 256 messages or calls.
    public static var `default`: OfflinePolicy { .queue(limit: 256) }
}
