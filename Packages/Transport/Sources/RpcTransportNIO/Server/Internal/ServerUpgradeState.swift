import NIOHTTP1

/// What the WebSocket upgrade of one connection decided, between the upgrader's callbacks and
/// the HTTP handler that answers a refused upgrade. Lives on the connection's event loop.
final class ServerUpgradeState {
    /// The status to answer a refused upgrade with; `nil` when nothing refused it (a malformed
    /// handshake is then answered with 400).
    var refusal: HTTPResponseStatus?
    /// The accepted request.
    var request: WebSocketUpgradeRequest?
    /// The subprotocol picked.
    var subprotocol: String?
    /// The compression parameters agreed.
    var agreedDeflate: AgreedDeflateParameters?
}
