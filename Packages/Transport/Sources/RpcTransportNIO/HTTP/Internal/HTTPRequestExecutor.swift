import Logging
import NIOCore
import NIOHTTP1
import RpcTransport

/// Sends HTTP/1.1 requests to one server over pooled keep-alive connections, through the
/// client connector and its TLS; what the batch client and the general HTTP client share.
final class HTTPRequestExecutor: Sendable {
    let target: TransportTarget
    let hostHeader: String
    let configuration: HTTPBatchClientConfiguration
    private let tls: (any TLSClientProvider)?
    private let eventLoopGroup: any EventLoopGroup
    private let pool: HTTPBatchConnectionPool
    private let logger: Logger

    init(
        target: TransportTarget,
        hostHeader: String,
        configuration: HTTPBatchClientConfiguration,
        eventLoopGroup: any EventLoopGroup,
        logger: Logger
    ) throws(TransportError) {
        self.target = target
        self.hostHeader = hostHeader
        self.configuration = configuration
        self.tls = try configuration.tls.map { configuration throws(TransportError) in
            try TLSProviders.client(configuration)
        }
        self.eventLoopGroup = eventLoopGroup
        self.pool = HTTPBatchConnectionPool(
            maxIdle: configuration.maxIdleConnections, idleTimeout: configuration.idleConnectionTimeout)
        self.logger = logger
    }

    /// Sends one request, with the `host` header, the body's `content-length` and the
    /// configured extra headers added, and returns its whole response. The connection goes
    /// back to the pool when the response allows it.
    func execute(method: HTTPMethod, uri: String, headers: HTTPHeaders, body: ByteBuffer) async throws(TransportError)
        -> HTTPBatchResponse
    {
        let connection: HTTPBatchConnection
        if let idle = try pool.checkout() {
            connection = idle
        } else {
            connection = try await HTTPBatchConnection.connect(
                to: target, eventLoop: eventLoopGroup.next(), configuration: configuration, tls: tls)
        }
        var head = HTTPRequestHead(version: .http1_1, method: method, uri: uri)
        head.headers.add(name: "host", value: hostHeader)
        head.headers.add(contentsOf: headers)
        if body.readableBytes > 0 || method == .POST || method == .PUT || method == .PATCH {
            head.headers.replaceOrAdd(name: "content-length", value: String(body.readableBytes))
        }
        head.headers.add(contentsOf: configuration.headers)
        let response: HTTPBatchResponse
        do {
            response = try await connection.execute(head: head, body: body, timeout: configuration.requestTimeout)
        } catch {
            connection.close()
            logger.debug("HTTP request failed", metadata: ["target": "\(target)", "error": "\(error)"])
            throw error
        }
        if response.head.isKeepAlive {
            pool.checkin(connection)
        } else {
            connection.close()
        }
        return response
    }

    /// Closes the idle connections; later requests fail with ``TransportError/Code/closed``.
    func close() async {
        await pool.close()
    }
}
