import RpcDo
public import RpcTransport

/// The settings of a ``TinyvexClient``; every limit has a safe default.
public struct TinyvexClientConfiguration: Sendable {
    /// Backoff and attempts for reconnecting.
    public var reconnect: ReconnectPolicy
    /// How often the client probes the server with a WebSocket ping (the transport's own probe;
    /// a transport without one is not probed).
    public var heartbeatInterval: Duration
    /// How long a probe may go unanswered before the connection counts as dead and is replaced.
    public var deadConnectionTimeout: Duration
    /// How long a mutation or action may take, waiting for the connection included, per attempt.
    public var requestTimeout: Duration
    /// How many times a request is sent again after a lost connection or a timeout: a mutation
    /// (with the same `requestId`) or an idempotent action after it was sent, any request that
    /// never reached the server.
    public var maxMutationResends: Int
    /// Requests held while offline; more fail with a transport error.
    public var offlineQueueLimit: Int
    /// How long opening one connection may take.
    public var connectTimeout: Duration
    /// How long the ready handshake of a new connection may take (`tinyvex/connect`, then every
    /// live query resubscribed); past it the attempt fails and the client tries again.
    public var handshakeTimeout: Duration
    /// Where the publishers deliver values, completions and connection states: the main queue
    /// (the main actor) by default, so that a main-actor `sink` is safe (see ``TinyvexDelivery``).
    public var delivery: TinyvexDelivery
    /// Whether the client asks the server for consistent snapshots (`tinyvex/transition`): every
    /// live query moves from one committed version to the next together. `true` by default;
    /// `false` takes each query's values one by one (`tinyvex/data`), as before.
    public var consistentSnapshots: Bool
    /// Where the client's metrics and spans go: a client span per mutation, action, one-shot
    /// query and new live query subscription, and the tracer whose trace context is sent with
    /// each connection's upgrade, so that the server's spans join the client's trace; also the
    /// connection's metrics (`protocol="tinyvex"`). Default: the process-wide factory and
    /// tracer.
    public var observability = RpcObservability()

    /// Creates a configuration: a ping every 15 s, dead after 120 s without an answer, values
    /// delivered on the main queue.
    public init(
        reconnect: ReconnectPolicy = ReconnectPolicy(maxAttempts: 100, backoff: .exponential(base: .milliseconds(100), max: .seconds(16))),
        heartbeatInterval: Duration = .seconds(15),
        deadConnectionTimeout: Duration = .seconds(120),
        requestTimeout: Duration = .seconds(30),
        maxMutationResends: Int = 5,
        offlineQueueLimit: Int = 256,
        connectTimeout: Duration = .seconds(10),
        handshakeTimeout: Duration = .seconds(30),
        delivery: TinyvexDelivery = .main,
        consistentSnapshots: Bool = true
    ) {
        self.reconnect = reconnect
        self.heartbeatInterval = heartbeatInterval
        self.deadConnectionTimeout = deadConnectionTimeout
        self.requestTimeout = requestTimeout
        self.maxMutationResends = maxMutationResends
        self.offlineQueueLimit = offlineQueueLimit
        self.connectTimeout = connectTimeout
        self.handshakeTimeout = handshakeTimeout
        self.delivery = delivery
        self.consistentSnapshots = consistentSnapshots
    }

    /// The supervised connection's settings: one liveness probe, the transport's ping; its
    /// metrics are labelled `protocol="tinyvex"`.
    var connectionConfiguration: ReconnectingConnectionConfiguration {
        var configuration = ReconnectingConnectionConfiguration(
            reconnect: reconnect,
            connectTimeout: connectTimeout,
            handshakeTimeout: handshakeTimeout,
            keepalive: Keepalive(interval: heartbeatInterval, timeout: deadConnectionTimeout, usesTransportPing: true, heartbeat: nil),
            offlineQueueLimit: offlineQueueLimit)
        configuration.protocolName = "tinyvex"
        configuration.observability = observability
        return configuration
    }

    /// The rules around each request: its timeout, and the one retry loop's retries and backoff.
    var channelSettings: ManagedChannel<ManagedConnectionError>.Settings {
        ManagedChannel.Settings(
            requestTimeout: requestTimeout, maxRetries: maxMutationResends, backoff: reconnect.backoff,
            maxRetryDelay: reconnect.backoff.maxDelay)
    }
}
