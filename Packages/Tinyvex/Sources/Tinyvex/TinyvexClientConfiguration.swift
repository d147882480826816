import RpcDo
public import RpcTransport

/// The settings of a ``TinyvexClient``; every limit has a safe default.
public struct TinyvexClientConfiguration: Sendable {
    /// Backoff and attempts for reconnecting.
    public var reconnect: ReconnectPolicy
    /// How often the client probes the server with `tinyvex/ping`.
    public var heartbeatInterval: Duration
    /// How long a probe may go unanswered before the connection counts as dead and is replaced.
    public var deadConnectionTimeout: Duration
    /// How long a mutation or action may take, waiting for the connection included.
    public var requestTimeout: Duration
    /// How many times a mutation is resent (with the same `requestId`) after connections are lost.
    public var maxMutationResends: Int
    /// Requests held while offline; more fail with a transport error.
    public var offlineQueueLimit: Int
    /// How long the first connection attempt may take.
    public var connectTimeout: Duration

    /// Creates a configuration: heartbeat every 15 s, dead after 120 s without an answer.
    public init(
        reconnect: ReconnectPolicy = ReconnectPolicy(maxAttempts: 100, backoff: .exponential(base: .milliseconds(100), max: .seconds(16))),
        heartbeatInterval: Duration = .seconds(15),
        deadConnectionTimeout: Duration = .seconds(120),
        requestTimeout: Duration = .seconds(30),
        maxMutationResends: Int = 5,
        offlineQueueLimit: Int = 256,
        connectTimeout: Duration = .seconds(10)
    ) {
        self.reconnect = reconnect
        self.heartbeatInterval = heartbeatInterval
        self.deadConnectionTimeout = deadConnectionTimeout
        self.requestTimeout = requestTimeout
        self.maxMutationResends = maxMutationResends
        self.offlineQueueLimit = offlineQueueLimit
        self.connectTimeout = connectTimeout
    }

    var connectionConfiguration: ManagedConnectionConfiguration {
        ManagedConnectionConfiguration(
            reconnect: reconnect,
            heartbeat: Heartbeat(interval: heartbeatInterval, timeout: deadConnectionTimeout, probe: { _ in }),
            connectTimeout: connectTimeout,
            offlinePolicy: .queue(limit: offlineQueueLimit),
            requestTimeout: requestTimeout,
            maxRequestRetries: maxMutationResends)
    }
}
