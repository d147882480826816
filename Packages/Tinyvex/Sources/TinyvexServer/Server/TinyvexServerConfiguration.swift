/// The limits and hooks of a ``TinyvexServer``; every limit has a safe default (see
/// docs/limits.md).
public struct TinyvexServerConfiguration: Sendable {
    /// Decides who a token belongs to: returns the identity, or `nil` to refuse the token
    /// (`TVX006`). Without a hook every token is accepted and no identity is set.
    public typealias Authenticate = @Sendable (_ token: String) async -> String?

    /// Live subscriptions one connection may hold; more are refused with `TVX002`.
    public var maxSubscriptionsPerConnection: Int
    /// The largest inbound message, in bytes; a larger one closes the connection (1009).
    public var maxMessageBytes: Int
    /// Messages waiting to be written to one connection before waiting `data` is coalesced.
    public var maxSendQueue: Int
    /// Values whose JSON text is longer than this many bytes go out as `transitionChunk`s.
    public var maxChunkBytes: Int
    /// How long one query evaluation may take before it fails with `TVX007`.
    public var maxEvaluationTime: Duration
    /// How long an action may run before its caller gets `TVX007`.
    public var actionTimeout: Duration
    /// How often the server sends `tinyvex/pong` on each connection.
    public var heartbeatInterval: Duration
    /// How many mutation results are kept for answering resent `requestId`s.
    public var mutationResultRetention: Int
    /// The auth hook for `tinyvex/connect` and `tinyvex/auth.setToken`.
    public var authenticate: Authenticate?

    /// Creates a configuration with the protocol's default limits.
    public init(
        maxSubscriptionsPerConnection: Int = 1_000,
        maxMessageBytes: Int = 1 << 20,
        maxSendQueue: Int = 100,
        maxChunkBytes: Int = 64 * 1024,
        maxEvaluationTime: Duration = .seconds(5),
        actionTimeout: Duration = .seconds(30),
        heartbeatInterval: Duration = .seconds(15),
        mutationResultRetention: Int = 10_000,
        authenticate: Authenticate? = nil
    ) {
        self.maxSubscriptionsPerConnection = maxSubscriptionsPerConnection
        self.maxMessageBytes = maxMessageBytes
        self.maxSendQueue = maxSendQueue
        self.maxChunkBytes = maxChunkBytes
        self.maxEvaluationTime = maxEvaluationTime
        self.actionTimeout = actionTimeout
        self.heartbeatInterval = heartbeatInterval
        self.mutationResultRetention = mutationResultRetention
        self.authenticate = authenticate
    }
}
