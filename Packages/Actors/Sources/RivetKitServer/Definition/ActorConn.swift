public import RivetKit
import Synchronization

/// One live connection of an actor, as actions and hooks hold it (RivetKit's `Conn`; the
/// client's connection is `RivetKit.ActorConnection`): who it is, the parameters
/// its client sent, the state `createConnState` made for it, and a way to send it an event or
/// close it. A realtime connection lives until its socket closes; an HTTP action's lasts for
/// that action.
///
/// ```swift
/// .action("poke") { (context: inout ActorContext<Room>, target: String) in
///     for connection in context.connections where connection.id == target {
///         try connection.send("poked", context.connection.id)
///     }
/// }
/// ```
public final class ActorConn: Sendable {
    /// Who the connection is: ids, actor and parameters.
    public let info: ActorConnectionInfo
    private let connectionState: Mutex<(any Sendable)?>
    private let deliver: (@Sendable (String) -> Void)?
    private let closer: (@Sendable (String) -> Void)?
    private let maxFrameSize: Int

    init(
        info: ActorConnectionInfo, state: (any Sendable)?, deliver: (@Sendable (String) -> Void)?,
        close: (@Sendable (String) -> Void)?, maxFrameSize: Int
    ) {
        self.info = info
        self.connectionState = Mutex(state)
        self.deliver = deliver
        self.closer = close
        self.maxFrameSize = maxFrameSize
    }

    /// The connection's id, as sent in `Init`.
    public var id: String { info.id }
    /// The actor's id.
    public var actorId: String { info.actorId }
    /// The actor's name in the registry.
    public var actorName: String { info.actorName }
    /// The actor's key.
    public var key: [String] { info.key }
    /// The namespace the actor lives in.
    public var namespace: String { info.namespace }
    /// The connection parameters; `nil` when the client sent none.
    public var params: JSONValue? { info.params }

    /// The parameters decoded as `T`.
    ///
    /// - Throws: ``ActorError`` `request.invalid_params` when there are none or they
    ///   do not decode.
    public func params<T: Decodable>(as type: T.Type) throws(ActorError) -> T {
        try info.params(as: type)
    }

    /// Whether the connection is realtime (events can be sent to it, it can be closed), not an
    /// HTTP action's.
    public var isRealtime: Bool { deliver != nil }

    /// The connection's state, as `createConnState` made it and actions and hooks left it;
    /// `nil` when the actor type makes none. Kept in memory for the connection's life only.
    public var state: (any Sendable)? {
        get { connectionState.withLock { $0 } }
        set { connectionState.withLock { $0 = newValue } }
    }

    /// The connection's state as `S`.
    ///
    /// - Throws: ``ActorError`` `rivetkit.internal_error` when there is none or it is
    ///   not an `S` (a mistake in the actor type, not in the client's request).
    public func state<S: Sendable>(as type: S.Type) throws(ActorError) -> S {
        guard let state = state as? S else {
            throw ActorError(.rivetkitInternalError, "the connection state is not a \(S.self)")
        }
        return state
    }

    /// Sends event `name` with positional `args` to this connection only, whether or not it
    /// subscribed to it. Does nothing on an HTTP action's connection, which cannot take events.
    ///
    /// - Throws: ``ActorError`` `rivetkit.internal_error` when an argument cannot be
    ///   encoded, `message.outgoing_too_long` when the frame is over the server's
    ///   `maxMessageSize` (nothing is sent).
    public func send(_ name: String, _ args: any Encodable...) throws(ActorError) {
        try send(name, args: args)
    }

    /// Sends event `name` with the positional arguments `args` to this connection only.
    ///
    /// - Throws: As ``send(_:_:)``.
    public func send(_ name: String, args: [any Encodable]) throws(ActorError) {
        guard let deliver else { return }
        var values: [JSONValue] = []
        for arg in args {
            values.append(try ActorValueCoding.encode(arg))
        }
        let frame = RivetMessageCodec.encode(ServerMessage.event(name: name, args: values))
        guard frame.utf8.count <= maxFrameSize else {
            throw ActorBroadcaster.outgoingTooLong(frame.utf8.count, limit: maxFrameSize, what: "the event \(name)")
        }
        deliver(frame)
    }

    /// Closes a realtime connection with code 1000 and `reason` (cut to 123 UTF-8 bytes, as a
    /// WebSocket close allows), without an error frame, once the actions it has in flight have
    /// answered; no further frame of it is read. Its `onDisconnect` hook runs once it has gone. RivetKit's client reconnects after such a
    /// close (a reason written `group.code` reads there as an error of that group and code).
    /// Does nothing on an HTTP action's connection.
    public func disconnect(reason: String = "") {
        closer?(reason)
    }
}
