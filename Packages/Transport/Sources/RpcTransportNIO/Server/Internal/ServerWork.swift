import RpcTransport

/// Work the event loops hand to the server's task group, where application code runs.
enum ServerWork: Sendable {
    /// Ask the upgrade hook about a handshake.
    case upgrade(WebSocketUpgradeRequest, ServerReply<WebSocketUpgradeDecision>)
    /// Run the connection handler for a new WebSocket connection.
    case connection(WebSocketTransport, WebSocketUpgradeRequest)
    /// Run the batch handler for a request.
    case batch(HTTPBatchRequest, ServerReply<[TransportMessage]>)
    /// Run the request handler for a request that is not an upgrade.
    case request(HTTPServerRequest, ServerReply<HTTPServerResponse>)
}
