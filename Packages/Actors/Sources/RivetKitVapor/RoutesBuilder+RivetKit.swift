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
        let configuration = gateway.configuration
        var transport = VaporTransportConfiguration(keepalive: WebSocketKeepalive())
        transport.maxMessageSize = configuration.maxMessageSize
        transport.maxFrameSize = configuration.maxMessageSize
        transport.maxRequestBodySize = configuration.maxMessageSize
        transport.maxPendingOutboundBytes = configuration.maxPendingBytesPerConnection
        transport.outboundBufferLimit = max(configuration.maxPendingBytesPerConnection / 2, 1)
        let settings = transport
        let respond: @Sendable (Request) async -> Response = { request in
            await Self.answer(request, gateway: gateway, settings: settings)
        }
        // HEAD is answered by the GET route, as Vapor does for every GET route.
        for method in [HTTPMethod.GET, .POST, .PUT, .DELETE, .PATCH, .OPTIONS] {
            on(method, path, body: .stream, use: respond)
            on(method, path + [.catchall], body: .stream, use: respond)
        }
    }

    /// Answers one request of the gateway's surface, or accepts its WebSocket.
    private static func answer(_ request: Request, gateway: ActorGateway, settings: VaporTransportConfiguration) async
        -> Response
    {
        let uri = gatewayTarget(of: request)
        if request.isWebSocketUpgrade {
            let upgrade = request.webSocketUpgradeRequest(uri: uri)
            return request.upgrade(gateway.decideUpgrade(upgrade), configuration: settings) { transport in
                await gateway.serve(transport, request: upgrade)
            }
        }
        do throws(TransportError) {
            let server = try await request.serverRequest(maxBodySize: settings.maxRequestBodySize, uri: uri)
            return Response(await gateway.respond(to: server))
        } catch {
            if error.code == .requestTooLarge {
                return Response(gateway.requestTooLargeResponse())
            }
            return Response(HTTPServerResponse(status: 400, text: error.message))
        }
    }

    /// The request target with the mount's path removed: the components the catch-all matched,
    /// as sent (percent-encoded), and the query.
    static func gatewayTarget(of request: Request) -> String {
        let matched = request.parameters.getCatchall().count
        let rawPath = request.url.path
        let components = rawPath.split(separator: "/", omittingEmptySubsequences: true)
        var path = "/" + components.suffix(matched).joined(separator: "/")
        if matched > 0, rawPath.hasSuffix("/") {
            path += "/"
        }
        guard let query = request.url.query else { return path }
        return path + "?" + query
    }
}
