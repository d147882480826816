public import NIOCore
public import NIOHTTP1
internal import RpcTransportNIO
internal import CapnWebCore

/// What a Cap'n Web server knows about a WebSocket connection or an HTTP batch when it admits
/// it and makes its main object: the request's path, headers and peer.
///
/// ```swift
/// try await withRpcServer(
///     admit: { info in
///         info.header("authorization") == "Bearer \(token)" ? .accept : .refuse(status: 401)
///     },
///     main: { info in Account(owner: info.header("x-user") ?? "guest") }
/// ) { server in … }
/// ```
public struct RpcConnectionInfo: Sendable {
    /// How the request arrived.
    public enum Kind: Sendable, Hashable {
        /// A WebSocket upgrade: one session for the life of the connection.
        case webSocket
        /// An HTTP batch (POST): one session for the request.
        case batch
    }

    /// How the request arrived.
    public var kind: Kind
    /// The request path, without the query (`/rpc`).
    public var path: String
    /// The request headers (authorization, cookies, origin, ...).
    public var headers: HTTPHeaders
    /// The peer's address, when the connection knows it.
    public var remoteAddress: SocketAddress?

    /// Creates the description of a request.
    public init(kind: Kind, path: String, headers: HTTPHeaders, remoteAddress: SocketAddress? = nil) {
        self.kind = kind
        self.path = path
        self.headers = headers
        self.remoteAddress = remoteAddress
    }

    /// The first value of the header `name` (compared without regard to case), if present.
    public func header(_ name: String) -> String? {
        headers.first(name: name)
    }

    init(_ request: WebSocketUpgradeRequest) {
        self.init(kind: .webSocket, path: request.path, headers: request.headers, remoteAddress: request.remoteAddress)
    }

    init(_ request: HTTPBatchRequest) {
        self.init(kind: .batch, path: request.path, headers: request.headers, remoteAddress: request.remoteAddress)
    }
}
