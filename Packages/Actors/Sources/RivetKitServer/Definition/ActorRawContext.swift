public import RivetKit

/// What a raw handler (``ActorDefinition/onRequest(_:)``, ``ActorDefinition/onWebSocket(_:)``)
/// sees of its actor: its current state and the connection the request or socket is, beside
/// what every context offers (``ActorContextual``: the actor's identity, vars, live
/// connections, events, schedules, destruction).
///
/// Raw handlers run beside the actor's actions, not in their queue, so ``state()`` reads the
/// state as the last action or hook left it; a handler changes the state through an action
/// (not through this context).
public struct ActorRawContext<State: Codable & Sendable>: ActorContextual {
    /// The connection this request or socket is (its hooks ran before the handler).
    public let connection: ActorConn
    /// The running actor this handler belongs to.
    public let runtimeHandle: ActorRuntimeHandle
    let currentState: @Sendable () throws(ActorError) -> State

    init(connection: ActorConn, runtime: ActorRuntime, currentState: @escaping @Sendable () throws(ActorError) -> State) {
        self.connection = connection
        self.runtimeHandle = ActorRuntimeHandle(runtime)
        self.currentState = currentState
    }

    /// The actor's state as the last action or hook left it.
    ///
    /// - Throws: ``ActorError`` `actor.state_unreadable` when it does not decode.
    public func state() throws(ActorError) -> State {
        try currentState()
    }
}
