public import RpcTransport

/// How a session connects and behaves: the seed's settings plus the receiver limits.
///
/// ```swift
/// let session = try await RpcSession<API>.connect(to: url) { config in
///     config.timeout = .seconds(30)
///     config.reconnect = .exponentialBackoff(maxAttempts: 10, baseDelay: .seconds(1), maxDelay: .seconds(30))
///     config.headers["Authorization"] = "Bearer \(token)"
/// }
/// ```
public struct Configuration: Sendable {
    /// How long an awaited call may take before it fails with ``RpcError/timeout`` (default
    /// 30 seconds).
    public var timeout: Duration
    /// Whether and how to reconnect after the connection drops (default: never).
    public var reconnect: ReconnectPolicy
    /// Headers sent with the WebSocket upgrade or the batch request.
    public var headers: [String: String]
    /// TLS settings for `wss://` and `https://`; `nil` uses the system's trust roots.
    public var tls: TLSClientConfiguration?
    /// Limits on what the peer may send.
    public var limits: RpcLimits
    /// How long to wait for the connection to open (default 10 seconds).
    public var connectTimeout: Duration
    /// For `RpcSession.batch(url:configure:isolation:execute:)`: once a result is awaited, how long the
    /// batch waits after the latest message before it is sent, so that calls made together
    /// (`async let`) travel together (default 5 ms). Calls nobody awaits yet do not start it.
    public var batchDelay: Duration
    /// Called with the text of every frame the session sends (`sent` true) or receives, in
    /// order, for logging and debugging (`capnweb call --trace`); `nil` (the default) for none.
    public var trace: (@Sendable (_ sent: Bool, _ text: String) -> Void)? = nil
    /// Where the session's metrics and spans go: the `rpc_server_calls` metrics and a server
    /// span per call the peer makes on this side's objects, the connection metrics of a session
    /// opened from a URL, and the tracer whose context a client sends with its WebSocket upgrade
    /// or batch request. Default: the process-wide factory and tracer.
    public var observability: RpcObservability = RpcObservability()

    /// The defaults.
    public init(
        timeout: Duration = .seconds(30),
        reconnect: ReconnectPolicy = .never,
        headers: [String: String] = [:],
        tls: TLSClientConfiguration? = nil,
        limits: RpcLimits = .default,
        connectTimeout: Duration = .seconds(10),
        batchDelay: Duration = .milliseconds(5)
    ) {
        self.timeout = timeout
        self.reconnect = reconnect
        self.headers = headers
        self.tls = tls
        self.limits = limits
        self.connectTimeout = connectTimeout
        self.batchDelay = batchDelay
    }
}

/// The reconnection policy shared by every layer of the stack.
public typealias ReconnectPolicy = RpcTransport.ReconnectPolicy
/// The connection states shared by every layer of the stack.
public typealias ConnectionState = RpcTransport.ConnectionState
