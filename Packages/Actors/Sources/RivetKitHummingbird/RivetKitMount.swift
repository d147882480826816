import Hummingbird
import RivetKitServer
import RpcTransport
import RpcTransportHummingbird
import RpcTransportNIO

/// One gateway mounted under a prefix: the gateway's own target of each request, and its
/// answer to a plain request.
struct RivetKitMount: Sendable {
    /// The methods the gateway's HTTP surface is routed for.
    static let methods: [HTTPRequest.Method] = [.get, .head, .post, .put, .patch, .delete, .options]

    let gateway: ActorGateway
    /// The prefix's segments.
    let segments: [Substring]

    init(prefix: String, gateway: ActorGateway) {
        self.gateway = gateway
        self.segments = prefix.split(separator: "/")
    }

    /// The router pattern matching everything under the prefix.
    var routePattern: String {
        "/" + (segments + ["**"]).joined(separator: "/")
    }

    /// The request's target as the gateway reads it: the path after the prefix, the query kept.
    func gatewayURI(of request: Request) -> String {
        let rest = request.uri.path.split(separator: "/", omittingEmptySubsequences: false)
            .filter { !$0.isEmpty }
            .dropFirst(segments.count)
        let query = request.uri.query.map { "?" + $0 } ?? ""
        return "/" + rest.joined(separator: "/") + query
    }

    /// The gateway's answer to a plain request; 413 with RivetKit's error body past the limit.
    func respond(to request: Request) async -> HTTPServerResponse {
        do throws(TransportError) {
            let ours = try await HTTPServerRequest(
                request, uri: gatewayURI(of: request), maxBodySize: gateway.configuration.maxMessageSize)
            return await gateway.respond(to: ours)
        } catch where error.code == .requestTooLarge {
            return gateway.requestTooLargeResponse()
        } catch {
            return HTTPServerResponse(status: error.httpStatus ?? 400, text: error.message)
        }
    }
}
