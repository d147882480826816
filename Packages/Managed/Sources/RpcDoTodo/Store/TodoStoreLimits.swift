/// The bounds a ``TodoStore`` enforces; input beyond one is rejected with a `RangeError` that
/// names the limit, and nothing already stored is lost. Negative values count as 0 (1 for the
/// buffer and retention counts), whether given to the initialiser or set later.
public struct TodoStoreLimits: Sendable, Hashable {
    /// The most todos the store holds (default 10 000).
    public var maxTodos: Int {
        didSet { maxTodos = max(0, maxTodos) }
    }
    /// The most users the store holds (default 10 000).
    public var maxUsers: Int {
        didSet { maxUsers = max(0, maxUsers) }
    }
    /// The longest title, name, email or chat message, in characters (default 1 000).
    public var maxTextLength: Int {
        didSet { maxTextLength = max(0, maxTextLength) }
    }
    /// The largest `limit` a listing accepts and the most IDs `deleteMany` takes (default 1 000).
    public var maxListLimit: Int {
        didSet { maxListLimit = max(0, maxListLimit) }
    }
    /// The most open streams (notifications, events, logs, chat) at once (default 1 000).
    public var maxSubscribers: Int {
        didSet { maxSubscribers = max(0, maxSubscribers) }
    }
    /// How many unread chunks a slow stream reader may fall behind before the oldest are
    /// dropped (default 256).
    public var subscriberBuffer: Int {
        didSet { subscriberBuffer = max(1, subscriberBuffer) }
    }
    /// How many notifications are kept, newest first (default 1 000).
    public var notificationRetention: Int {
        didSet { notificationRetention = max(1, notificationRetention) }
    }
    /// How many log entries are kept for `logs.stream` (default 500).
    public var logRetention: Int {
        didSet { logRetention = max(1, logRetention) }
    }
    /// The longest delay `longRunningOperation(milliseconds)` accepts (default 10 seconds).
    public var maxOperationDelay: Duration {
        didSet { maxOperationDelay = max(.zero, maxOperationDelay) }
    }

    /// The defaults.
    public init(
        maxTodos: Int = 10_000,
        maxUsers: Int = 10_000,
        maxTextLength: Int = 1_000,
        maxListLimit: Int = 1_000,
        maxSubscribers: Int = 1_000,
        subscriberBuffer: Int = 256,
        notificationRetention: Int = 1_000,
        logRetention: Int = 500,
        maxOperationDelay: Duration = .seconds(10)
    ) {
        self.maxTodos = max(0, maxTodos)
        self.maxUsers = max(0, maxUsers)
        self.maxTextLength = max(0, maxTextLength)
        self.maxListLimit = max(0, maxListLimit)
        self.maxSubscribers = max(0, maxSubscribers)
        self.subscriberBuffer = max(1, subscriberBuffer)
        self.notificationRetention = max(1, notificationRetention)
        self.logRetention = max(1, logRetention)
        self.maxOperationDelay = max(.zero, maxOperationDelay)
    }
}
