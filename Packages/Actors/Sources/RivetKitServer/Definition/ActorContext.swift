public import RivetKit

/// What an action works with: the actor's state, which it may change, the calling connection,
/// the actor's vars and live connections, and a way to broadcast events to the connections
/// that subscribed to them.
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
    public let connection: ActorConn
    let runtime: ActorRuntime

    init(state: State, connection: ActorConn, runtime: ActorRuntime) {
        self.state = state
        self.connection = connection
        self.runtime = runtime
    }

    /// The actor's id.
    public var actorId: String { runtime.actorId }
    /// The actor type's name.
    public var name: String { runtime.name }
    /// The actor's key.
    public var key: [String] { runtime.key }

    /// The actor's vars: what `createVars` made when this instance started, never saved;
    /// `nil` for a type that makes none.
    public var vars: (any Sendable)? {
        get { runtime.currentVars }
        nonmutating set { runtime.currentVars = newValue }
    }

    /// The vars as `V`.
    ///
    /// - Throws: ``RivetKit/ActorError`` `rivetkit.internal_error` when there are none or they
    ///   are not a `V` (a mistake in the actor type).
    public func vars<V: Sendable>(as type: V.Type) throws(ActorError) -> V {
        try ActorLifecycleContext<State>.typedVars(runtime, as: type)
    }

    /// The actor's live connections (realtime ones, and HTTP actions while they run), oldest
    /// first; the calling connection among them.
    public var connections: [ActorConn] { runtime.connections }

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
        try ActorLifecycleContext<State>.broadcast(runtime, name, args: args)
    }

    /// Destroys the actor once this action has answered: `onDestroy` runs, its connections
    /// close (1000, empty reason), its state is removed, and later requests get
    /// `actor.not_found`. A second call does nothing.
    public func destroy() {
        runtime.requestDestroy()
    }

    /// The actor's schedules: actions to run later, kept across sleep and restarts.
    public var schedule: ActorSchedule { ActorSchedule(runtime: runtime) }

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
