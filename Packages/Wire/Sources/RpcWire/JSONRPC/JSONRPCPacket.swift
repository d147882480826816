/// What travels in one JSON-RPC 2.0 transmission: a single message or a batch of them.
public enum JSONRPCPacket: Sendable, Hashable {
    /// One message, sent as a JSON object.
    case single(JSONRPCMessage)
    /// Several messages, sent as a non-empty JSON array.
    case batch([JSONRPCMessage])

    /// The messages in order (one for ``single(_:)``).
    public var messages: [JSONRPCMessage] {
        switch self {
        case .single(let message): [message]
        case .batch(let messages): messages
        }
    }
}
