public import RpcWire

/// A frame an actor sends to a client over the realtime connection.
public enum ServerMessage: Sendable, Hashable {
    /// The connection is ready: it is connection `connectionId` of actor `actorId`. Tag `Init`.
    case initialize(actorId: String, connectionId: String)
    /// The result of the action request `id`.
    case actionResponse(id: UInt64, output: JSONValue)
    /// A broadcast of event `name` with positional `args`.
    case event(name: String, args: [JSONValue])
    /// An error: of the action request `actionId`, or of the connection when that is `nil`.
    case error(ActorError, actionId: UInt64?)
}
