public import Hummingbird
public import HummingbirdCore

extension HTTPServerBuilder {
    /// An HTTP/1.1 server whose WebSockets are ours: a connection whose first request is a
    /// WebSocket opening handshake is answered by `webSocketRouter`, middleware included; a route
    /// that accepts it (``Hummingbird/Request/upgrade(_:configuration:onConnection:)``) gets the
    /// connection as one of our ``RpcTransportNIO/WebSocketTransport``s, the transport a
    /// ``RpcTransportNIO/TransportServer`` accepts, with the route's limits, compression and
    /// keepalive. Any other answer (a middleware's 401 with its headers and body, a route's
    /// refusal, a 404) is sent as the router gave it, and the connection closed. Every other
    /// request is the application's, as with `.http1(configuration:)`.
    ///
    /// ```swift
    /// let router = Router(context: AppRequestContext.self)
    /// router.add(middleware: BearerAuthMiddleware())
    /// router.addCapnWeb("/rpc") { request, context in Api(user: context.user) }
    /// let app = Application(router: router, server: .http1WebSocketTransports(webSocketRouter: router))
    /// ```
    ///
    /// When the application shuts down gracefully, the WebSockets still open are closed with
    /// 1001 (going away).
    ///
    /// - Parameters:
    ///   - webSocketRouter: The router that answers opening handshakes; usually the application's
    ///     own.
    ///   - configuration: The HTTP/1.1 settings, as for `.http1(configuration:)`.
    /// - Returns: The server for the application.
    public static func http1WebSocketTransports<WebSocketRouter: HTTPResponderBuilder & SendableMetatype>(
        webSocketRouter: WebSocketRouter,
        configuration: HTTP1Channel.Configuration = HTTP1Channel.Configuration()
    ) -> HTTPServerBuilder
    where WebSocketRouter.Responder.Context: RequestContext & InitializableFromSource<ApplicationRequestContextSource> {
        let webSocketResponder = webSocketRouter.buildResponder()
        return HTTPServerBuilder { responder in
            TransportUpgradeChannel(responder: responder, webSocketResponder: webSocketResponder, configuration: configuration)
        }
    }
}
