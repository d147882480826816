public import RivetKit

/// What a lifecycle or connection hook works with (`onCreate`, `onWake`, `onSleep`,
/// `onDestroy`, `onStateChange`, `createVars`, `createConnState`, `onBeforeConnect`,
/// `onConnect`, `onDisconnect`): the actor's state, its vars, its live connections, events,
/// destruction and background work. A hook given it `inout` may change the state, which is
/// saved when the hook returns.
///
/// ```swift
/// .onWake { (context: inout ActorLifecycleContext<Counter>) in
///     context.state.wakes += 1
/// }
/// ```
public struct ActorLifecycleContext<State: Codable & Sendable>: Sendable {
    /// The actor's state.
    public var state: State
    let runtime: ActorRuntime

    init(state: State, runtime: ActorRuntime) {
        self.state = state
        self.runtime = runtime
    }

    /// The actor's id.
    public var actorId: String { runtime.actorId }
    /// The actor type's name.
    public var name: String { runtime.name }
    /// The actor's key.
    public var key: [String] { runtime.key }

    /// The actor's vars: what `createVars` made when this instance started, never saved;
    /// `nil` in `createVars` itself and for a type that makes none.
    public var vars: (any Sendable)? {
        get { runtime.currentVars }
        nonmutating set { runtime.currentVars = newValue }
    }

    /// The vars as `V`.
    ///
    /// - Throws: ``RivetKit/ActorError`` `rivetkit.internal_error` when there are none or they
    ///   are not a `V` (a mistake in the actor type).
    public func vars<V: Sendable>(as type: V.Type) throws(ActorError) -> V {
        try ActorLifecycleContext.typedVars(runtime, as: type)
    }

    /// The actor's schedules: actions to run later, kept across sleep and restarts.
    public var schedule: ActorSchedule { ActorSchedule(runtime: runtime) }

    /// The actor's live connections (realtime ones, and HTTP actions while they run), oldest
    /// first.
    public var connections: [ActorConn] { runtime.connections }

    /// Sends event `name` with positional `args` to every connection that subscribed to it.
    ///
    /// - Throws: As ``ActorContext/broadcast(_:_:)``.
    public func broadcast(_ name: String, _ args: any Encodable...) throws(ActorError) {
        try ActorLifecycleContext.broadcast(runtime, name, args: args)
    }

    /// Destroys the actor once the work running now is done: `onDestroy` runs, its connections
    /// close (1000, empty reason), its state is removed, and later requests get
    /// `actor.not_found`. A second call does nothing.
    public func destroy() {
        runtime.requestDestroy()
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

    static func typedVars<V>(_ runtime: ActorRuntime, as type: V.Type) throws(ActorError) -> V {
        guard let vars = runtime.currentVars as? V else {
            throw ActorError(.rivetkitInternalError, "the actor's vars are not a \(V.self)")
        }
        return vars
    }

    static func broadcast(_ runtime: ActorRuntime, _ name: String, args: [any Encodable]) throws(ActorError) {
        var values: [JSONValue] = []
        for arg in args {
            values.append(try ActorValueCoding.encode(arg))
        }
        try runtime.broadcaster.broadcast(name, args: values)
    }
}
