public import RpcWire

/// A frame a client sends to an actor over the realtime connection.
public enum ClientMessage: Sendable, Hashable {
    /// Calls action `name` with positional `args`; `id` is the connection's counter, from 0.
    case actionRequest(id: UInt64, name: String, args: [JSONValue])
    /// Starts (`subscribe` true) or stops receiving the event `eventName`.
    case subscriptionRequest(eventName: String, subscribe: Bool)
}
