public import Logging
public import RpcTransport

/// How a managed connection keeps its connection alive. Every limit has a safe default.
///
/// ```swift
/// var config = ManagedConnectionConfiguration()
/// config.reconnect = .exponentialBackoff(maxAttempts: 10, baseDelay: .milliseconds(100), maxDelay: .seconds(10))
/// config.offlinePolicy = .queue(limit: 100)
/// config.headers["Authorization"] = "Bearer \(token)"
/// ```
public struct ManagedConnectionConfiguration: Sendable {
    /// How a lost connection is re-established: attempts and exponential backoff with full
    /// jitter (default: 10 attempts, 100 ms doubling up to 10 s).
    public var reconnect: ReconnectPolicy
    /// An application-level liveness probe run on the open transport; `nil` (the default)
    /// for none. When set it is the keepalive's probe (instead of ``keepalive``).
    public var heartbeat: Heartbeat?
    /// Frame-level keepalive pings (WebSocket ping/pong) on the open transport; `nil` (the
    /// default) for none. Ignored when ``heartbeat`` is set.
    public var keepalive: Keepalive?
    /// How long opening one transport may take (default 30 s).
    public var connectTimeout: Duration
    /// What happens to messages and calls while not connected (default: queue 256).
    public var offlinePolicy: OfflinePolicy
    /// How long a request may wait for its answer, including time spent waiting for the
    /// connection (default 30 s).
    public var requestTimeout: Duration
    /// How many times a request marked idempotent is sent again after its connection was lost
    /// (default 3). Requests not marked idempotent are never repeated once sent.
    public var maxRequestRetries: Int
    /// Headers passed to the transport factory on every (re)connect.
    public var headers: [String: String]
    /// Middleware run in order around every request (first is outermost).
    public var interceptors: [any ClientInterceptor]
    /// Where connection events are logged; silent by default.
    public var logger: Logger

    /// The defaults.
    public init(
        reconnect: ReconnectPolicy = ReconnectPolicy(maxAttempts: 10, backoff: .exponential(base: .milliseconds(100), max: .seconds(10))),
        heartbeat: Heartbeat? = nil,
        keepalive: Keepalive? = nil,
        connectTimeout: Duration = .seconds(30),
        offlinePolicy: OfflinePolicy = .default,
        requestTimeout: Duration = .seconds(30),
        maxRequestRetries: Int = 3,
        headers: [String: String] = [:],
        interceptors: [any ClientInterceptor] = [],
        logger: Logger = Logger(label: "rpc.managed", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.reconnect = reconnect
        self.heartbeat = heartbeat
        self.keepalive = keepalive
        self.connectTimeout = connectTimeout
        self.offlinePolicy = offlinePolicy
        self.requestTimeout = requestTimeout
        self.maxRequestRetries = maxRequestRetries
        self.headers = headers
        self.interceptors = interceptors
        self.logger = logger
    }

    /// The settings of the reconnecting connection underneath: the reconnect policy, connect
    /// timeout, keepalive (or the heartbeat), the offline policy as its queue limit, headers and
    /// logger.
    public var connectionConfiguration: ReconnectingConnectionConfiguration {
        let probe = heartbeat.map { heartbeat in
            Keepalive(interval: heartbeat.interval, timeout: heartbeat.timeout, usesTransportPing: false, heartbeat: heartbeat.probe)
        }
        let offlineQueueLimit: Int? =
            switch offlinePolicy {
            case .queue(let limit): max(0, limit)
            case .fail: nil
            }
        return ReconnectingConnectionConfiguration(
            reconnect: reconnect,
            connectTimeout: connectTimeout,
            keepalive: probe ?? keepalive,
            offlineQueueLimit: offlineQueueLimit,
            headers: headers,
            logger: logger)
    }
}
