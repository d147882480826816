public import Logging

/// How a ``ReconnectingConnection`` opens and keeps its connection. Every limit has a safe
/// default.
///
/// ```swift
/// var configuration = ReconnectingConnectionConfiguration()
/// configuration.reconnect = ReconnectPolicy(maxAttempts: nil, backoff: .exponential(base: .milliseconds(100), max: .seconds(10)))
/// configuration.keepalive = Keepalive(interval: .seconds(20), timeout: .seconds(5))
/// configuration.offlineQueueLimit = 100
/// ```
public struct ReconnectingConnectionConfiguration: Sendable {
    /// How a lost connection is re-established: attempts, and the backoff (with jitter) before
    /// each. Default: 10 attempts, 100 ms doubling up to 10 s, full jitter.
    public var reconnect: ReconnectPolicy
    /// How long opening one transport (the factory) may take before the attempt fails with
    /// ``TransportError/Code/connectTimeout``. Default 10 seconds.
    public var connectTimeout: Duration
    /// How long the protocol's ready handshake (``ReconnectingConnection/Hooks/handshake``) may
    /// take once the transport is open before the attempt fails with
    /// ``TransportError/Code/handshakeTimeout``. Default 10 seconds.
    public var handshakeTimeout: Duration
    /// Liveness probes on the open transport; `nil` (the default) for none.
    public var keepalive: Keepalive?
    /// How many messages plus ``ReconnectingConnection/link()`` callers are held while no link
    /// is ready (they are released after the ready handshake); `nil` fails them at once with
    /// ``TransportError/Code/notConnected``. The callers of `start()` and `reconnect()` do not
    /// count. Default 256.
    public var offlineQueueLimit: Int?
    /// Headers passed to the factory on every (re)connect. Default none.
    public var headers: [String: String]
    /// Where connection events are logged; silent by default.
    public var logger: Logger
    /// Where the connection's metrics go (reconnects, the offline queue's depth, whether it is
    /// connected) and the tracer whose context is injected into the headers of each (re)connect.
    /// Default: the process-wide factory and tracer.
    public var observability: RpcObservability = RpcObservability()
    /// The value of the `protocol` label of the connection's metrics (`rpcdo`, `rivetkit`,
    /// `tinyvex`, `capnweb`). Default `rpc`.
    public var protocolName: String = "rpc"

    /// Creates a configuration.
    public init(
        reconnect: ReconnectPolicy = ReconnectPolicy(maxAttempts: 10, backoff: .exponential(base: .milliseconds(100), max: .seconds(10))),
        connectTimeout: Duration = .seconds(10),
        handshakeTimeout: Duration = .seconds(10),
        keepalive: Keepalive? = nil,
        offlineQueueLimit: Int? = 256,
        headers: [String: String] = [:],
        logger: Logger = Logger(label: "rpc.connection", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.reconnect = reconnect
        self.connectTimeout = connectTimeout
        self.handshakeTimeout = handshakeTimeout
        self.keepalive = keepalive
        self.offlineQueueLimit = offlineQueueLimit
        self.headers = headers
        self.logger = logger
    }
}
