public import Logging
public import NIOCore
public import RpcTransport
public import NIOPosix
import NIOHTTP1

/// Opens WebSocket connections (RFC 6455) over SwiftNIO.
///
/// ```swift
/// let transport = try await WebSocketClient.connect(to: "ws://127.0.0.1:8080/rpc")
/// transport.start { event in
///     if case .message(let message) = event { print(message.text ?? "binary") }
/// }
/// try await transport.send(.text("hello"))
/// await transport.close()
/// ```
public enum WebSocketClient {
    /// Connects to a `ws://` or `wss://` URL and completes the opening handshake.
    ///
    /// The URL's path and query replace ``WebSocketClientConfiguration/path``. A `wss` URL uses
    /// ``WebSocketClientConfiguration/tls``, or the default TLS settings when that is `nil`.
    ///
    /// - Parameters:
    ///   - url: The server's URL.
    ///   - configuration: Offers, limits and timeouts.
    ///   - eventLoopGroup: Where the connection's I/O runs.
    ///   - logger: Where connection events are logged; silent by default.
    /// - Returns: The open connection.
    /// - Throws: ``TransportError``: `invalidTarget` for a URL that cannot be
    ///   used, `connectFailed`, `connectTimeout`, a TLS code, `handshakeTimeout`,
    ///   `upgradeRejected` (with the HTTP status) for an answer other than 101, or
    ///   `handshakeFailed` for an invalid 101 answer.
    public static func connect(
        to url: String,
        configuration: WebSocketClientConfiguration = WebSocketClientConfiguration(),
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger = Logger(label: "rpc.transport.websocket", factory: { _ in SwiftLogNoOpLogHandler() })
    ) async throws(TransportError) -> WebSocketTransport {
        let endpoint = try EndpointURL.parse(url, schemes: [.ws, .wss])
        var configuration = configuration
        configuration.path = endpoint.requestTarget
        configuration.tls = endpoint.scheme.isSecure ? (configuration.tls ?? .default) : nil
        return try await open(
            target: endpoint.target,
            hostHeader: endpoint.hostHeader,
            configuration: configuration,
            eventLoopGroup: eventLoopGroup,
            logger: logger
        )
    }

    /// Connects to a host and port, an IP address or a Unix domain socket and completes the
    /// opening handshake; TLS is used when ``WebSocketClientConfiguration/tls`` is set.
    ///
    /// - Parameters:
    ///   - target: Where to connect.
    ///   - path: The path and query to request; `nil` uses ``WebSocketClientConfiguration/path``.
    ///   - configuration: Offers, limits and timeouts.
    ///   - eventLoopGroup: Where the connection's I/O runs.
    ///   - logger: Where connection events are logged; silent by default.
    /// - Returns: The open connection.
    /// - Throws: ``TransportError`` as ``connect(to:configuration:eventLoopGroup:logger:)``.
    public static func connect(
        to target: TransportTarget,
        path: String? = nil,
        configuration: WebSocketClientConfiguration = WebSocketClientConfiguration(),
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger = Logger(label: "rpc.transport.websocket", factory: { _ in SwiftLogNoOpLogHandler() })
    ) async throws(TransportError) -> WebSocketTransport {
        var configuration = configuration
        if let path {
            configuration.path = path
        }
        guard configuration.path.hasPrefix("/") else {
            throw TransportError(code: .invalidTarget, message: "the request path \(configuration.path) does not start with /")
        }
        return try await open(
            target: target,
            hostHeader: target.hostHeader,
            configuration: configuration,
            eventLoopGroup: eventLoopGroup,
            logger: logger
        )
    }

    private static func open(
        target: TransportTarget,
        hostHeader: String,
        configuration: WebSocketClientConfiguration,
        eventLoopGroup: any EventLoopGroup,
        logger: Logger
    ) async throws(TransportError) -> WebSocketTransport {
        let tls = try configuration.tls.map { configuration throws(TransportError) in
            try TLSProviders.client(configuration)
        }
        var requestHead = HTTPRequestHead(version: .http1_1, method: .GET, uri: configuration.path)
        requestHead.headers.add(name: "Host", value: hostHeader)
        requestHead.headers.add(contentsOf: configuration.headers)
        let head = requestHead

        let eventLoop = eventLoopGroup.next()
        let promise = eventLoop.makePromise(of: WebSocketTransport.self)
        let channel: any Channel
        do {
            channel = try await ClientConnector.connect(
                to: target,
                eventLoop: eventLoop,
                connectTimeout: configuration.connectTimeout,
                tls: tls,
                serverHostname: target.host
            ) { channel in
                let handshake = WebSocketClientHandshake(
                    requestHead: head, configuration: configuration, promise: promise)
                let handshakeHandler = WebSocketClientHandshakeHandler(handshake: handshake)
                let upgrader = WebSocketClientUpgrader(handshake: handshake, handshakeHandler: handshakeHandler)
                try channel.pipeline.syncOperations.addHTTPClientHandlers(
                    leftOverBytesStrategy: .forwardBytes,
                    withClientUpgrade: (upgraders: [upgrader], completionHandler: { _ in })
                )
                try channel.pipeline.syncOperations.addHandler(handshakeHandler)
            }
        } catch {
            promise.fail(error)
            logger.debug("WebSocket connect failed", metadata: ["target": "\(target)", "error": "\(error)"])
            throw error
        }
        do {
            let transport = try await withTaskCancellationHandler {
                try await promise.futureResult.get()
            } onCancel: {
                channel.close(promise: nil)
            }
            logger.debug("WebSocket connected", metadata: ["target": "\(target)", "path": "\(configuration.path)"])
            return transport
        } catch {
            channel.close(promise: nil)
            let failure =
                error as? TransportError
                ?? TransportError(code: .handshakeFailed, message: "the opening handshake failed: \(error)", cause: error)
            logger.debug("WebSocket handshake failed", metadata: ["target": "\(target)", "error": "\(failure)"])
            if Task.isCancelled, failure.code == .handshakeFailed {
                throw TransportError(code: .cancelled, message: "connecting was cancelled", cause: failure)
            }
            throw failure
        }
    }
}
