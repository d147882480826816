import Vapor
import RivetKitServer
import RpcTransportVapor
import RpcTransportNIO

/// What `RoutesBuilder.addRivetKit(_:gateway:)` does with each request it routes: the
/// gateway's paths are its own, so the mount's path is taken off first.
enum VaporGatewayMount {
    /// Answers one request of the gateway's surface, or accepts its WebSocket.
    static func answer(_ request: Request, gateway: ActorGateway, settings: VaporTransportConfiguration) async
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
