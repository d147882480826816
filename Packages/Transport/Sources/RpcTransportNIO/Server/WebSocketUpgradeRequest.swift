public import NIOCore
public import NIOHTTP1

/// An opening handshake a ``TransportServer`` received, as its upgrade hook sees it and as the
/// connection handler receives it alongside the connection.
public struct WebSocketUpgradeRequest: Sendable {
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

    /// The query of the request target, without the `?`; empty when there is none.
    public var query: String {
        HTTPQuery.query(of: uri)
    }

    /// The query's parameters in order, names and values percent-decoded (`+` as a space).
    public var queryItems: [(name: String, value: String)] {
        HTTPQuery.items(of: query)
    }

    /// The value of the first query parameter called `name`, percent-decoded.
    public func queryValue(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }
}
