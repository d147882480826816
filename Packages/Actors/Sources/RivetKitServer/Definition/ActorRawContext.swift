public import RivetKit

/// What a raw handler (``ActorDefinition/onRequest(_:)``, ``ActorDefinition/onWebSocket(_:)``)
/// sees of its actor: the actor's identity, its current state, vars and connections, the
/// connection the request or socket is, and `broadcast`/`destroy`.
///
/// Raw handlers run beside the actor's actions, not in their queue, so ``state()`` reads the
/// state as the last action or hook left it; a handler changes the state through an action
/// (not through this context).
public struct ActorRawContext<State: Codable & Sendable>: Sendable {
    /// The connection this request or socket is (its hooks ran before the handler).
    public let connection: ActorConn
    let runtime: ActorRuntime
    let currentState: @Sendable () throws(ActorError) -> State

    init(connection: ActorConn, runtime: ActorRuntime, currentState: @escaping @Sendable () throws(ActorError) -> State) {
        self.connection = connection
        self.runtime = runtime
        self.currentState = currentState
    }

    /// The actor's id.
    public var actorId: String { runtime.actorId }
    /// The actor's type name.
    public var name: String { runtime.name }
    /// The actor's key.
    public var key: [String] { runtime.key }

    /// The actor's state as the last action or hook left it.
    ///
    /// - Throws: ``RivetKit/ActorError`` `actor.state_unreadable` when it does not decode.
    public func state() throws(ActorError) -> State {
        try currentState()
    }

    /// The actor's vars (made by `createVars`); `nil` when it has none.
    public var vars: (any Sendable)? {
        get { runtime.currentVars }
        nonmutating set { runtime.currentVars = newValue }
    }

    /// The vars as `V`.
    ///
    /// - Throws: ``RivetKit/ActorError`` `rivetkit.internal_error` when they are not a `V`.
    public func vars<V: Sendable>(as type: V.Type) throws(ActorError) -> V {
        try ActorLifecycleContext<State>.typedVars(runtime, as: type)
    }

    /// The actor's live connections, this one included, in the order they connected.
    public var connections: [ActorConn] { runtime.connections }

    /// Sends event `name` with `args` to the connections subscribed to it.
    ///
    /// - Throws: ``RivetKit/ActorError`` when an argument cannot be encoded or the frame is
    ///   over the message size limit.
    public func broadcast(_ name: String, _ args: any Encodable...) throws(ActorError) {
        try ActorLifecycleContext<State>.broadcast(runtime, name, args: args)
    }

    /// Destroys the actor once this handler has returned and the actions before have run.
    public func destroy() {
        runtime.requestDestroy()
    }
}
