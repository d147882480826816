public import NIOHTTP1
public import RpcTransport

/// How an ``HTTPBatchClient`` connects and sends its requests.
///
/// ```swift
/// var configuration = HTTPBatchClientConfiguration()
/// configuration.headers.add(name: "authorization", value: "Bearer secret")
/// configuration.requestTimeout = .seconds(5)
/// ```
public struct HTTPBatchClientConfiguration: Sendable {
    /// Extra headers sent with every request.
    public var headers: HTTPHeaders
    /// TLS settings for `https` URLs (and targets, where setting it turns TLS on); `nil` uses
    /// ``TLSClientConfiguration/default`` for `https` and plaintext otherwise.
    public var tls: TLSClientConfiguration?
    /// How long establishing a connection may take (TCP; TLS counts toward the request timeout).
    /// Default 10 seconds.
    public var connectTimeout: Duration
    /// How long a request may wait for its complete response. Default 30 seconds.
    public var requestTimeout: Duration
    /// The largest response body accepted, in bytes. Default 32 MiB.
    public var maxResponseBodySize: Int
    /// How many idle keep-alive connections are kept for reuse. Default 4.
    public var maxIdleConnections: Int
    /// How long an idle connection is kept for reuse before it is closed; keep it below the
    /// server's idle timeout. Default 30 seconds.
    public var idleConnectionTimeout: Duration
    /// The tracer whose current context is injected into the headers of each request, so that
    /// the server's spans join the caller's trace. Default: the process-wide tracer, read when
    /// the client is made.
    public var observability: RpcObservability = RpcObservability()

    /// Creates a configuration; every parameter has the default its property documents.
    public init(
        headers: HTTPHeaders = [:],
        tls: TLSClientConfiguration? = nil,
        connectTimeout: Duration = .seconds(10),
        requestTimeout: Duration = .seconds(30),
        maxResponseBodySize: Int = 32 * 1024 * 1024,
        maxIdleConnections: Int = 4,
        idleConnectionTimeout: Duration = .seconds(30)
    ) {
        self.headers = headers
        self.tls = tls
        self.connectTimeout = connectTimeout
        self.requestTimeout = requestTimeout
        self.maxResponseBodySize = maxResponseBodySize
        self.maxIdleConnections = maxIdleConnections
        self.idleConnectionTimeout = idleConnectionTimeout
    }
}
