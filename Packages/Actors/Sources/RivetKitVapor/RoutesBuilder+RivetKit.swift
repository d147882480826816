public import Vapor
public import RivetKitServer
import RpcTransportVapor
import RpcTransportNIO

extension RoutesBuilder {
    /// Serves every route of `rivetkit serve` under `path` on this builder, behind its
    /// middleware: the metadata, the actors' HTTP API, the gateway's actions and raw requests,
    /// and the realtime and raw WebSockets, with `gateway`'s actors, store and limits. Paths
    /// below `path` are the gateway's own: `path/metadata`, `path/actors`, `path/gateway/…`.
    ///
    /// A request body over ``RivetKitServer/ActorServerConfiguration/maxMessageSize`` is
    /// refused with RivetKit's 413 error body before more of it is read.
    ///
    /// ```swift
    /// try await withActorGateway(registry: registry, store: store) { gateway in
    ///     let app = try await Application.make()
    ///     app.grouped(TokenAuthenticator(), User.guardMiddleware()).addRivetKit("actors", gateway: gateway)
    ///     try await app.execute()
    ///     try await app.asyncShutdown()
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - path: Where to serve, below this builder's own path.
    ///   - gateway: The actors to serve; keep the application's server inside its scope.
    public func addRivetKit(_ path: PathComponent..., gateway: ActorGateway) {
        let settings = gateway.transportConfiguration
        let respond: @Sendable (Request) async -> Response = { request in
            await VaporGatewayMount.answer(request, gateway: gateway, settings: settings)
        }
        // HEAD is answered by the GET route, as Vapor does for every GET route.
        for method in [HTTPMethod.GET, .POST, .PUT, .DELETE, .PATCH, .OPTIONS] {
            on(method, path, body: .stream, use: respond)
            on(method, path + [.catchall], body: .stream, use: respond)
        }
    }
}
