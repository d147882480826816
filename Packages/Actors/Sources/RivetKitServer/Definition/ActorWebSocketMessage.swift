/// One message of a raw WebSocket (``ActorWebSocket``): text or binary.
public enum ActorWebSocketMessage: Sendable, Hashable {
    /// A text message.
    case text(String)
    /// A binary message.
    case binary([UInt8])
}
