public import Hummingbird
public import RivetKitServer
import RpcTransport
import RpcTransportHummingbird
import RpcTransportNIO

extension RouterMethods {
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
    ///     let app = Application(router: router, server: .http1WebSocketTransports(webSocketRouter: router))
    ///     try await app.runService()
    /// }
    /// ```
    ///
    /// The application's server must upgrade WebSockets through this router
    /// (`.http1WebSocketTransports(webSocketRouter:)`): a WebSocket its middleware refuses gets
    /// the middleware's answer, one the gateway refuses its status, and an accepted one is our
    /// `WebSocketTransport` with the gateway's ``RivetKitServer/ActorGateway/transportConfiguration``.
    /// Bodies over the gateway's `maxMessageSize` get 413 with RivetKit's error body.
    ///
    /// - Parameters:
    ///   - prefix: The path the gateway's routes are under (`/rivet`); `/` for the root.
    ///   - gateway: The actors that answer.
    /// - Returns: The router, to chain more routes.
    @discardableResult
    public func addRivetKit(_ prefix: String, gateway: ActorGateway) -> Self {
        let mount = RivetKitMount(prefix: prefix, gateway: gateway)
        let path = RouterPath(mount.routePattern)
        let transport = gateway.transportConfiguration
        for method in RivetKitMount.methods {
            on(path, method: method) { request, _ -> Response in
                if method == .get, WebSocketUpgradeRequest.isRequested(by: request) {
                    let upgrade = WebSocketUpgradeRequest(request, uri: mount.gatewayURI(of: request))
                    return request.upgrade(gateway.decideUpgrade(upgrade), configuration: transport) { connection in
                        await gateway.serve(connection, request: upgrade)
                    }
                }
                return Response(await mount.respond(to: request))
            }
        }
        return self
    }
}
