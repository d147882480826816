public import NIOCore
public import NIOHTTP1

/// One HTTP request a ``TransportServer`` received that is not a WebSocket upgrade, as its
/// request handler sees it: the method, where it was sent, its headers and its whole body.
public struct HTTPServerRequest: HTTPRequestTarget, Sendable {
    /// The request method.
    public var method: HTTPMethod
    /// The request target's path, without the query.
    public var path: String
    /// The request target as sent: path and query.
    public var uri: String
    /// The request headers.
    public var headers: HTTPHeaders
    /// The whole body; empty when the request has none.
    public var body: [UInt8]
    /// The client's address, when known.
    public var remoteAddress: SocketAddress?

    /// Creates a request description.
    public init(
        method: HTTPMethod,
        uri: String,
        headers: HTTPHeaders = [:],
        body: [UInt8] = [],
        remoteAddress: SocketAddress? = nil
    ) {
        self.method = method
        self.path = ServerCore.path(of: uri)
        self.uri = uri
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
    }

    /// The body as UTF-8 text; `nil` when it is not valid UTF-8.
    public var bodyText: String? {
        String(validating: body, as: UTF8.self)
    }
}
