public import RivetKit

/// What an action works with: the actor's state, which it may change, the calling connection
/// and a way to broadcast events to the connections that subscribed to them.
///
/// ```swift
/// .action("increment") { (context: inout ActorContext<Counter>, by: Int) in
///     context.state.count += by
///     try context.broadcast("newCount", context.state.count)
///     return context.state.count
/// }
/// ```
public struct ActorContext<State: Codable & Sendable>: Sendable {
    /// The actor's state; changes are saved when the action returns, before it is answered.
    public var state: State
    /// The connection that called the action (a short-lived one for an HTTP action).
    public let connection: ActorConnectionInfo
    let broadcaster: ActorBroadcaster

    init(state: State, connection: ActorConnectionInfo, broadcaster: ActorBroadcaster) {
        self.state = state
        self.connection = connection
        self.broadcaster = broadcaster
    }

    /// The actor's id.
    public var actorId: String { connection.actorId }
    /// The actor's key.
    public var key: [String] { connection.key }

    /// Sends event `name` with positional `args` to every connection of this actor that
    /// subscribed to it, and to no other.
    ///
    /// - Throws: ``RivetKit/ActorError`` `rivetkit.internal_error` when an argument cannot be
    ///   encoded as JSON, and `message.outgoing_too_long` when the event's frame is over the
    ///   server's `maxMessageSize` (nothing is sent; thrown on, it fails the action, whose
    ///   state change is then not kept).
    public func broadcast(_ name: String, _ args: any Encodable...) throws(ActorError) {
        try broadcast(name, args: args)
    }

    /// Sends event `name` with the positional arguments `args` to the subscribed connections.
    ///
    /// - Throws: As ``broadcast(_:_:)``.
    public func broadcast(_ name: String, args: [any Encodable]) throws(ActorError) {
        var values: [JSONValue] = []
        for arg in args {
            values.append(try ActorValueCoding.encode(arg))
        }
        try broadcaster.broadcast(name, args: values)
    }
}
