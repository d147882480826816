/// What a message transport delivers to its handler.
public enum TransportEvent: Sendable {
    /// A complete inbound message.
    case message(TransportMessage)
    /// The connection ended; no event follows this one.
    case closed(TransportClosure)
}
