/// What a lifecycle or connection hook works with (`onCreate`, `onWake`, `onSleep`,
/// `onDestroy`, `onStateChange`, `createVars`, `createConnState`, `onBeforeConnect`,
/// `onConnect`, `onDisconnect`): the actor's state, beside what every context offers
/// (``ActorContextual``: vars, live connections, events, schedules, destruction), and
/// background work. A hook given it `inout` may change the state, which is saved when the hook
/// returns.
///
/// ```swift
/// .onWake { (context: inout ActorLifecycleContext<Counter>) in
///     context.state.wakes += 1
/// }
/// ```
public struct ActorLifecycleContext<State: Codable & Sendable>: ActorContextual {
    /// The actor's state.
    public var state: State
    /// The running actor this hook belongs to.
    public let runtimeHandle: ActorRuntimeHandle

    init(state: State, runtime: ActorRuntime) {
        self.state = state
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
