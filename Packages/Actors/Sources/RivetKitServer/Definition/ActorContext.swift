/// What an action works with: the actor's state, which it may change, and the calling
/// connection, beside what every context offers (``ActorContextual``: vars, live connections,
/// events, schedules, destruction), and background work.
///
/// ```swift
/// .action("increment") { (context: inout ActorContext<Counter>, by: Int) in
///     context.state.count += by
///     try context.broadcast("newCount", context.state.count)
///     return context.state.count
/// }
/// ```
public struct ActorContext<State: Codable & Sendable>: ActorContextual {
    /// The actor's state; changes are saved when the action returns, before it is answered.
    public var state: State
    /// The connection that called the action (a short-lived one for an HTTP action).
    public let connection: ActorConn
    /// The running actor this action belongs to.
    public let runtimeHandle: ActorRuntimeHandle

    init(state: State, connection: ActorConn, runtime: ActorRuntime) {
        self.state = state
        self.connection = connection
        self.runtimeHandle = ActorRuntimeHandle(runtime)
    }

    /// Runs `body` in the background and keeps the actor awake until it ends.
    public func keepAwake(_ body: @escaping @Sendable () async -> Void) {
        runtime.keepAwake(body)
    }

    /// Runs `body` in the background without keeping the actor awake (RivetKit's `waitUntil`);
    /// sleep and destroy wait for it (within ``ActorServerConfiguration/sleepGracePeriod``,
    /// then it is cancelled).
    public func runInBackground(_ body: @escaping @Sendable () async -> Void) {
        runtime.runInBackground(body)
    }
}
