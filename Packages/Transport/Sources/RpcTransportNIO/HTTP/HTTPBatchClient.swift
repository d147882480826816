public import Logging
public import NIOCore
public import NIOPosix
public import RpcTransport
import NIOHTTP1
import ServiceContextModule
import Tracing

/// Sends batches of messages as HTTP POST requests: the messages joined by `\n` as the body,
/// the response body split the same way. Connections are kept alive and reused.
///
/// ```swift
/// let client = try HTTPBatchClient(url: "http://127.0.0.1:8080/rpc")
/// let replies = try await client.exchange([.text(#"["push",1]"#), .text(#"["pull",1]"#)])
/// await client.close()
/// ```
public final class HTTPBatchClient: BatchTransport, Sendable {
    /// The configuration the client runs with.
    public let configuration: HTTPBatchClientConfiguration

    private let requestTarget: String
    private let executor: HTTPRequestExecutor
    /// The tracer whose context goes into each request's headers; `nil` when spans go nowhere.
    private let tracer: (any Tracer)?

    /// Creates a client for an `http://` or `https://` URL; connections open on first use.
    ///
    /// - Parameters:
    ///   - url: Where to POST batches.
    ///   - configuration: Headers, TLS, timeouts and limits. `https` uses
    ///     ``HTTPBatchClientConfiguration/tls`` or the default TLS settings; `http` never uses TLS.
    ///   - eventLoopGroup: Where the connections' I/O runs.
    ///   - logger: Where client events are logged; silent by default.
    /// - Throws: ``TransportError`` with code `invalidTarget` for a URL that cannot
    ///   be used, or a TLS configuration code.
    public convenience init(
        url: String,
        configuration: HTTPBatchClientConfiguration = HTTPBatchClientConfiguration(),
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger = Logger(label: "rpc.transport.http", factory: { _ in SwiftLogNoOpLogHandler() })
    ) throws(TransportError) {
        let endpoint = try EndpointURL.parse(url, schemes: [.http, .https])
        var configuration = configuration
        configuration.tls = endpoint.scheme.isSecure ? (configuration.tls ?? .default) : nil
        try self.init(
            target: endpoint.target,
            path: endpoint.requestTarget,
            hostHeader: endpoint.hostHeader,
            configuration: configuration,
            eventLoopGroup: eventLoopGroup,
            logger: logger
        )
    }

    /// Creates a client for a host and port, an IP address or a Unix domain socket; TLS is used
    /// when ``HTTPBatchClientConfiguration/tls`` is set.
    ///
    /// - Parameters:
    ///   - target: Where to connect.
    ///   - path: The path and query to POST to.
    ///   - configuration: Headers, TLS, timeouts and limits.
    ///   - eventLoopGroup: Where the connections' I/O runs.
    ///   - logger: Where client events are logged; silent by default.
    /// - Throws: ``TransportError`` with code `invalidTarget` for a path that does
    ///   not start with `/`, or a TLS configuration code.
    public convenience init(
        target: TransportTarget,
        path: String = "/",
        configuration: HTTPBatchClientConfiguration = HTTPBatchClientConfiguration(),
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger = Logger(label: "rpc.transport.http", factory: { _ in SwiftLogNoOpLogHandler() })
    ) throws(TransportError) {
        guard path.hasPrefix("/") else {
            throw TransportError(code: .invalidTarget, message: "the request path \(path) does not start with /")
        }
        try self.init(
            target: target,
            path: path,
            hostHeader: target.hostHeader,
            configuration: configuration,
            eventLoopGroup: eventLoopGroup,
            logger: logger
        )
    }

    private init(
        target: TransportTarget,
        path: String,
        hostHeader: String,
        configuration: HTTPBatchClientConfiguration,
        eventLoopGroup: any EventLoopGroup,
        logger: Logger
    ) throws(TransportError) {
        self.requestTarget = path
        self.configuration = configuration
        self.tracer = configuration.observability.activeTracer
        self.executor = try HTTPRequestExecutor(
            target: target,
            hostHeader: hostHeader,
            configuration: configuration,
            eventLoopGroup: eventLoopGroup,
            logger: logger
        )
    }

    /// Sends `messages` in one POST and returns the messages of the response.
    ///
    /// - Throws: ``TransportError``: `protocolViolation` for a binary message, a
    ///   message containing a newline or a response that is not UTF-8; `requestTooLarge` for
    ///   413; `httpStatus` (with ``TransportError/httpStatus``) for any other status
    ///   than 200; a connection code when the server cannot be reached; `closed` after
    ///   ``close()``.
    public func exchange(_ messages: [TransportMessage]) async throws(TransportError) -> [TransportMessage] {
        guard messages.allSatisfy(HTTPBatchBody.canCarry) else {
            throw TransportError(
                code: .protocolViolation, message: "HTTP batches carry only text messages without newlines")
        }
        let body = HTTPBatchBody.encode(messages, allocator: ByteBufferAllocator())
        var headers: HTTPHeaders = ["content-type": HTTPBatchBody.contentType]
        if let tracer, let context = ServiceContext.current {
            TraceContextPropagation.inject(context, into: &headers, using: tracer)
        }
        let response = try await executor.execute(
            method: .POST,
            uri: requestTarget,
            headers: headers,
            body: body
        )
        let status = Int(response.head.status.code)
        switch status {
        case 200:
            guard let replies = HTTPBatchBody.decode(response.body) else {
                throw TransportError(code: .protocolViolation, message: "the response body is not valid UTF-8")
            }
            return replies
        case 413:
            throw TransportError(
                code: .requestTooLarge, message: "the server refused the request body as too large", httpStatus: 413)
        default:
            throw TransportError(
                code: .httpStatus,
                message: "the server answered \(status) \(response.head.status.reasonPhrase)"
                    + Self.explanation(in: response.body),
                httpStatus: status
            )
        }
    }

    /// The start of a short text body (a server's reason for its status) as `: reason`, or
    /// nothing for an empty, binary or long body.
    private static func explanation(in body: ByteBuffer) -> String {
        guard body.readableBytes > 0, body.readableBytes <= maxExplanationBytes,
            let text = body.getString(at: body.readerIndex, length: body.readableBytes),
            !text.contains(where: { $0.isNewline || $0.asciiValue.map { $0 < 0x20 } == true })
        else { return "" }
        return ": " + text
    }

    /// The longest status body quoted in an error message.
    private static let maxExplanationBytes = 200

    /// Closes the idle connections; later exchanges fail with ``TransportError/Code/closed``.
    public func close() async {
        await executor.close()
    }
}
