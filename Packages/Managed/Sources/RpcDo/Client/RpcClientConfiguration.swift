#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import Logging
public import RpcTransport

/// How an ``RpcClient`` connects, times out and retries.
///
/// ```swift
/// let config = RpcClientConfiguration(
///     url: serverURL,
///     timeout: 30.0,
///     maxRetries: 3,
///     headers: ["Authorization": "Bearer \(token)"]
/// )
/// let client = RpcClient(configuration: config)
/// ```
///
/// Times are in seconds; a value that is not a positive finite number falls back to its
/// default. Beyond the seed's fields, ``tls``, ``reconnect``, ``offlinePolicy``,
/// ``keepaliveInterval``, ``keepaliveTimeout``, ``connectTimeout``, ``interceptors`` and
/// ``logger`` tune the managed connection; ``observability`` says where metrics and spans go.
public struct RpcClientConfiguration: Sendable {
    /// The server's WebSocket URL (`ws://` or `wss://`).
    public let url: URL
    /// Other servers of the same service (`ws://` or `wss://`, default none), behind one client:
    /// each attempt to connect tries the servers in turn, from the current one on (``url``
    /// first, then these, then ``url`` again), until one accepts; the attempt fails, and the
    /// reconnect policy waits before the next, only when none does. A lost connection is tried
    /// again on the server it was on first. A session and its references live on one
    /// connection, so a client that moves to another server starts a new session there (see
    /// docs/scaling.md).
    public var fallbackURLs: [URL] = []
    /// How long a call may take per attempt, in seconds (default 30). `RpcRef.timeout(_:)`
    /// overrides it per call.
    public var timeout: TimeInterval
    /// How many times a failed call that is safe to repeat is retried (default 3).
    public var maxRetries: Int
    /// The first retry's backoff ceiling, in seconds (default 0.1); it doubles per attempt.
    public var retryBaseDelay: TimeInterval
    /// The largest wait between retries, in seconds (default 10); also caps `retryAfter`.
    public var maxRetryDelay: TimeInterval
    /// Headers sent with the WebSocket upgrade; see ``RpcClient/updateHeader(_:value:)``.
    public var headers: [String: String]
    /// TLS settings for a `wss://` URL: which roots the server's certificate must lead to, a
    /// client certificate, pins, the minimum version. `nil` (the default) verifies the server
    /// against the system's roots. Setting it for a `ws://` URL makes ``RpcClient/connect()``
    /// fail with ``RpcError/invalidArgument(_:)`` (it would never be used).
    ///
    /// ```swift
    /// config.tls = .init(
    ///     certificateChain: [],     // Empty for client-only auth
    ///     privateKey: nil,          // Nil for client-only auth
    ///     serverCertificateVerification: .fullVerification,
    ///     trustRoots: .certificates([.file(path: certPath)])
    /// )
    /// ```
    public var tls: TLSClientConfiguration?
    /// How the connection is re-established after a loss (default: 10 attempts, backoff from
    /// ``retryBaseDelay`` up to ``maxRetryDelay``).
    public var reconnect: ReconnectPolicy?
    /// What calls made while reconnecting do: wait (default, up to 256 at once) or fail.
    public var offlinePolicy: OfflinePolicy = .default
    /// The WebSocket ping interval, in seconds (default 30); `nil` for no pings.
    public var keepaliveInterval: TimeInterval? = 30
    /// How long a ping may wait for its pong before the connection counts as lost (default 10).
    public var keepaliveTimeout: TimeInterval = 10
    /// How long opening a connection may take, in seconds (default 10).
    public var connectTimeout: TimeInterval = 10
    /// Middleware run in order around every call (first is outermost).
    public var interceptors: [any ClientInterceptor] = []
    /// Where connection events are logged; silent by default.
    public var logger = Logger(label: "rpc.do", factory: { _ in SwiftLogNoOpLogHandler() })
    /// Where the client's metrics and spans go (default: the process-wide metrics factory and
    /// tracer, read when the client is created). Each call counts in the `rpc_client_calls`
    /// metrics (`protocol="rpcdo"`, by method) and runs in a client span whose trace context is
    /// written into the call's ``ClientCall/metadata``; the connection counts in the
    /// `rpc_client_connections` metrics with `protocol="rpcdo"`. With the no-op factory and
    /// tracer nothing is recorded.
    public var observability = RpcObservability()

    /// Creates a configuration with the seed's defaults.
    public init(
        url: URL,
        timeout: TimeInterval = 30.0,
        maxRetries: Int = 3,
        retryBaseDelay: TimeInterval = 0.1,
        maxRetryDelay: TimeInterval = 10.0,
        headers: [String: String] = [:]
    ) {
        self.url = url
        self.timeout = timeout
        self.maxRetries = maxRetries
        self.retryBaseDelay = retryBaseDelay
        self.maxRetryDelay = maxRetryDelay
        self.headers = headers
    }
}

extension RpcClientConfiguration {
    /// `seconds` as a duration, or `fallback` when it is not a positive finite number; a huge
    /// value is clamped to ``ClampedSeconds/limit`` instead of trapping.
    static func duration(_ seconds: TimeInterval?, default fallback: TimeInterval) -> Duration {
        guard let seconds, seconds > 0, let duration = ClampedSeconds.duration(seconds) else { return .seconds(fallback) }
        return duration
    }

    var callTimeout: Duration { Self.duration(timeout, default: 30) }
    var retryBackoff: Backoff {
        .exponential(base: Self.duration(retryBaseDelay, default: 0.1), max: Self.duration(maxRetryDelay, default: 10))
    }
    var maxRetryDelayDuration: Duration { Self.duration(maxRetryDelay, default: 10) }
    var retries: Int { max(0, maxRetries) }
    var reconnectPolicy: ReconnectPolicy {
        reconnect ?? ReconnectPolicy(maxAttempts: 10, backoff: retryBackoff)
    }
}
