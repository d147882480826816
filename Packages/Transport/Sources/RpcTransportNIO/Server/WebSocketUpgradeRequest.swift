public import NIOCore
public import NIOHTTP1

/// An opening handshake a ``TransportServer`` received, as its upgrade hook sees it and as the
/// connection handler receives it alongside the connection.
public struct WebSocketUpgradeRequest: HTTPRequestTarget, Sendable {
    /// The request target's path, without the query.
    public var path: String
    /// The request target as sent: path and query.
    public var uri: String
    /// The request headers.
    public var headers: HTTPHeaders
    /// The client's address, when known.
    public var remoteAddress: SocketAddress?
    /// The subprotocols the client offered, in its order of preference.
    public var offeredSubprotocols: [String]

    /// Creates a request description.
    public init(
        path: String,
        uri: String,
        headers: HTTPHeaders,
        remoteAddress: SocketAddress?,
        offeredSubprotocols: [String]
    ) {
        self.path = path
        self.uri = uri
        self.headers = headers
        self.remoteAddress = remoteAddress
        self.offeredSubprotocols = offeredSubprotocols
    }
}
