public import NIOCore
public import NIOHTTP1
public import RpcTransport

/// One HTTP batch a ``TransportServer`` received: the messages of a POST body, split at `\n`,
/// with where and how they were sent.
public struct HTTPBatchRequest: Sendable {
    /// The request target's path, without the query.
    public var path: String
    /// The request target as sent: path and query.
    public var uri: String
    /// The request headers.
    public var headers: HTTPHeaders
    /// The client's address, when known.
    public var remoteAddress: SocketAddress?
    /// The messages of the body, in order; all text.
    public var messages: [TransportMessage]

    /// Creates a batch request description.
    public init(
        path: String,
        uri: String,
        headers: HTTPHeaders,
        remoteAddress: SocketAddress?,
        messages: [TransportMessage]
    ) {
        self.path = path
        self.uri = uri
        self.headers = headers
        self.remoteAddress = remoteAddress
        self.messages = messages
    }
}
