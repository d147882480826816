public import Hummingbird
public import HummingbirdWebSocket
public import RivetKitServer
import RpcTransport
import RpcTransportHummingbird
import RpcTransportNIO

extension RouterMethods where Context: WebSocketRequestContext {
    /// Serves every route of `rivetkit serve` under `prefix` on this router, behind its
    /// middleware: the HTTP surface (`/metadata`, `/actors`, gateway actions and raw requests)
    /// and the gateway's WebSockets (realtime connections and raw WebSockets), answered by
    /// `gateway`. Clients use the mount as their endpoint (`http://host:port/rivet`).
    ///
    /// ```swift
    /// try await withActorGateway(registry: registry, store: store) { gateway in
    ///     let router = Router(context: AppRequestContext.self)
    ///     router.add(middleware: BearerAuthMiddleware())
    ///     router.addRivetKit("/rivet", gateway: gateway)
    ///     let app = Application(
    ///         router: router,
    ///         server: .http1WebSocketUpgrade(webSocketRouter: router, configuration: .init(ws: .init(maxFrameSize: 1 << 20))))
    ///     try await app.runService()
    /// }
    /// ```
    ///
    /// The application's server must upgrade WebSockets through this router
    /// (`.http1WebSocketUpgrade(webSocketRouter:)`). Bodies over the gateway's
    /// `maxMessageSize` get 413 with RivetKit's error body.
    ///
    /// - Parameters:
    ///   - prefix: The path the gateway's routes are under (`/rivet`); `/` for the root.
    ///   - gateway: The actors that answer.
    /// - Returns: The router, to chain more routes.
    @discardableResult
    public func addRivetKit(_ prefix: String, gateway: ActorGateway) -> Self {
        let mount = RivetKitMount(prefix: prefix, gateway: gateway)
        let path = RouterPath(mount.routePattern)
        let upgrader = WebSocketUpgradeMiddleware<Context>(
            shouldUpgrade: { request, _ in
                let decision = gateway.decideUpgrade(WebSocketUpgradeRequest(request, uri: mount.gatewayURI(of: request)))
                guard let subprotocol = decision.subprotocol else { return .dontUpgrade }
                return .upgrade([.secWebSocketProtocol: subprotocol])
            },
            onUpgrade: { inbound, outbound, webSocketContext in
                let request = WebSocketUpgradeRequest(
                    webSocketContext.request, uri: mount.gatewayURI(of: webSocketContext.request))
                await HummingbirdWebSocketTransport.withTransport(
                    inbound: inbound, outbound: outbound, configuration: mount.transportLimits
                ) { transport in
                    await gateway.serve(transport, request: request)
                }
            })
        for method in RivetKitMount.methods {
            on(path, method: method) { request, context -> Response in
                if method == .get, WebSocketUpgradeRequest.isRequested(by: request) {
                    let decision = gateway.decideUpgrade(WebSocketUpgradeRequest(request, uri: mount.gatewayURI(of: request)))
                    if let status = decision.refusalStatus {
                        return Response(HTTPServerResponse(status: status, text: "WebSocket upgrade refused"))
                    }
                    return try await upgrader.handle(request, context: context) { _, _ in Response(status: .notFound) }
                }
                return Response(await mount.respond(to: request))
            }
        }
        return self
    }
}
