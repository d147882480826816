public import Logging
public import NIOCore
import NIOHTTP1
public import NIOPosix
public import RpcTransport

/// Sends HTTP requests of any method to one server: the same keep-alive connections, client
/// connector and OpenSSL TLS as ``HTTPBatchClient``, for APIs that are not batches (JSON
/// resources, webhooks, control endpoints).
///
/// Every status comes back as an ``HTTPClientResponse``; only failures to get one throw.
///
/// ```swift
/// let client = try HTTPClient(baseURL: "http://127.0.0.1:6420")
/// let response = try await client.execute(HTTPClientRequest(method: .GET, path: "/metadata"))
/// print(response.status, response.text ?? "")
/// await client.close()
/// ```
public final class HTTPClient: Sendable {
    /// The configuration the client runs with.
    public let configuration: HTTPClientConfiguration
    /// The path the base URL named, without a trailing `/`; request paths are appended to it.
    public let basePath: String

    private let executor: HTTPRequestExecutor

    /// Creates a client for an `http://` or `https://` base URL; connections open on first use.
    ///
    /// - Parameters:
    ///   - baseURL: The server, and optionally a path every request path is appended to. A
    ///     query in the base URL is dropped.
    ///   - configuration: Headers, TLS, timeouts and limits. `https` uses its TLS settings or
    ///     the default ones; `http` never uses TLS.
    ///   - eventLoopGroup: Where the connections' I/O runs.
    ///   - logger: Where client events are logged; silent by default.
    /// - Throws: ``TransportError`` with code `invalidTarget` for a URL that cannot
    ///   be used, or a TLS configuration code.
    public init(
        baseURL: String,
        configuration: HTTPClientConfiguration = HTTPClientConfiguration(),
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger = Logger(label: "rpc.transport.http", factory: { _ in SwiftLogNoOpLogHandler() })
    ) throws(TransportError) {
        let endpoint = try EndpointURL.parse(baseURL, schemes: [.http, .https])
        var configuration = configuration
        configuration.tls = endpoint.scheme.isSecure ? (configuration.tls ?? .default) : nil
        var path = ServerCore.path(of: endpoint.requestTarget)
        while path.hasSuffix("/") {
            path.removeLast()
        }
        self.basePath = path
        self.configuration = configuration
        self.executor = try HTTPRequestExecutor(
            target: endpoint.target,
            hostHeader: endpoint.hostHeader,
            configuration: configuration,
            eventLoopGroup: eventLoopGroup,
            logger: logger
        )
    }

    /// Sends `request` and returns the server's whole response, whatever its status.
    ///
    /// - Throws: ``TransportError``: `invalidTarget` for a path that does not start
    ///   with `/`; `messageTooLarge` for a response body over
    ///   ``HTTPBatchClientConfiguration/maxResponseBodySize``; a connection code when the
    ///   server cannot be reached or no response arrives within the request timeout;
    ///   `cancelled` when the task is cancelled; `closed` after ``close()``.
    public func execute(_ request: HTTPClientRequest) async throws(TransportError) -> HTTPClientResponse {
        guard request.path.hasPrefix("/"), !request.path.contains(where: { $0 == " " || $0.isNewline }) else {
            throw TransportError(code: .invalidTarget, message: "the request path \(request.path) is not usable")
        }
        let response = try await executor.execute(
            method: request.method,
            uri: basePath + request.path,
            headers: request.headers,
            body: ByteBufferAllocator().buffer(bytes: request.body)
        )
        return HTTPClientResponse(
            status: Int(response.head.status.code),
            headers: response.head.headers,
            body: response.body.getBytes(at: response.body.readerIndex, length: response.body.readableBytes) ?? []
        )
    }

    /// Closes the idle connections; later requests fail with ``TransportError/Code/closed``.
    public func close() async {
        await executor.close()
    }
}

/// The settings of an ``HTTPClient``: extra headers, TLS, timeouts, the response size limit
/// and connection reuse, the same as a batch client's.
public typealias HTTPClientConfiguration = HTTPBatchClientConfiguration
