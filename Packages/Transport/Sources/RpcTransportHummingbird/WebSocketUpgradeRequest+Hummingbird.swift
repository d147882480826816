public import Hummingbird
public import NIOCore
public import RpcTransportNIO
import HTTPTypes
import NIOHTTP1

extension WebSocketUpgradeRequest {
    /// The opening handshake of a WebSocket a Hummingbird route is asked to accept, as this
    /// repository's servers read one: target, headers and offered subprotocols.
    ///
    /// - Parameters:
    ///   - request: The route's request.
    ///   - uri: The target to record instead of the request's own (the part after a mount's
    ///     prefix, say); `nil` keeps the request's.
    ///   - remoteAddress: The client's address, when the route knows it.
    public init(_ request: Request, uri: String? = nil, remoteAddress: SocketAddress? = nil) {
        let target = uri ?? request.uri.string
        let headers = HTTPHeaders(request.headers)
        let offered = headers[canonicalForm: "sec-websocket-protocol"].map { String($0) }.filter { !$0.isEmpty }
        self.init(
            path: String(target.prefix { $0 != "?" }), uri: target, headers: headers, remoteAddress: remoteAddress,
            offeredSubprotocols: offered)
    }

    /// Whether a Hummingbird request asks for a WebSocket (`upgrade: websocket`), so that a
    /// route that also answers plain requests can tell them apart.
    public static func isRequested(by request: Request) -> Bool {
        request.headers[values: .upgrade].contains { $0.lowercased() == "websocket" }
    }
}
