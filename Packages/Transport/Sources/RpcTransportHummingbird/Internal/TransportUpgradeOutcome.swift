import Hummingbird
import NIOCore
import NIOHTTPTypes
import RpcTransportNIO

/// What became of a connection's first request in a ``TransportUpgradeChannel``.
enum TransportUpgradeOutcome: Sendable {
    /// Not an opening handshake: the connection serves HTTP requests.
    case http(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>)
    /// An opening handshake the router did not accept: its answer is sent, then the connection
    /// is closed.
    case refused(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>, Response)
    /// An accepted handshake: the connection is our WebSocket, served by the route's handler.
    case webSocket(WebSocketTransport, @Sendable (WebSocketTransport) async -> Void)
}
