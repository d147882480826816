public import RivetKit

/// What every context of a running actor offers, whatever the code it is given to: the actor's
/// identity, its vars and live connections, events to broadcast, its schedules and its
/// destruction.
///
/// ``ActorContext`` (actions), ``ActorLifecycleContext`` (lifecycle and connection hooks) and
/// ``ActorRawContext`` (raw `onRequest`/`onWebSocket` handlers) conform; each adds what is its
/// own, such as the state or the calling connection. Only the server makes contexts.
///
/// ```swift
/// .action("reset") { (context: inout ActorContext<Counter>) in
///     context.state.count = 0
///     try context.broadcast("newCount", 0)
/// }
/// ```
public protocol ActorContextual: Sendable {
    /// The running actor this context belongs to, through which the members every context
    /// shares reach it.
    var runtimeHandle: ActorRuntimeHandle { get }
}

/// An opaque reference to a running actor instance, held by the contexts given to its code.
///
/// It has no public members and cannot be made outside the server; use the members of
/// ``ActorContextual`` instead.
public struct ActorRuntimeHandle: Sendable {
    let runtime: ActorRuntime

    init(_ runtime: ActorRuntime) {
        self.runtime = runtime
    }
}

extension ActorContextual {
    var runtime: ActorRuntime { runtimeHandle.runtime }

    /// The actor's id.
    public var actorId: String { runtime.actorId }
    /// The name of the actor's type.
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
    /// - Throws: ``ActorError`` `rivetkit.internal_error` when there are none or they
    ///   are not a `V` (a mistake in the actor type).
    public func vars<V: Sendable>(as type: V.Type) throws(ActorError) -> V {
        guard let vars = runtime.currentVars as? V else {
            throw ActorError(.rivetkitInternalError, "the actor's vars are not a \(V.self)")
        }
        return vars
    }

    /// The actor's live connections (realtime ones, and HTTP actions and raw requests while they
    /// run), oldest first; the connection of the action or raw handler given this context among
    /// them.
    public var connections: [ActorConn] { runtime.connections }

    /// Sends event `name` with positional `args` to every connection of this actor that
    /// subscribed to it, and to no other.
    ///
    /// - Throws: ``ActorError`` `rivetkit.internal_error` when an argument cannot be
    ///   encoded as JSON, and `message.outgoing_too_long` when the event's frame is over the
    ///   server's `maxMessageSize` (nothing is sent; thrown on from an action, it fails the
    ///   action, whose state change is then not kept).
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
        try runtime.broadcaster.broadcast(name, args: values)
    }

    /// Destroys the actor once the work running now is done (an action once it has answered, a
    /// hook once it has returned, a raw handler once it has returned and the actions queued
    /// before have run): `onDestroy` runs, its connections close (1000, empty reason), its state
    /// is removed, and later requests get `actor.not_found`. A second call does nothing.
    public func destroy() {
        runtime.requestDestroy()
    }

    /// The actor's schedules: actions to run later, kept across sleep and restarts.
    public var schedule: ActorSchedule { ActorSchedule(runtime: runtime) }

    /// A RivetKit client of the other actors of this server, in this actor's namespace: the
    /// same ``RivetKitClient`` an application uses (`getOrCreate`, `get`, `getForId`,
    /// `create`, actions, realtime connections and their events), whose requests stay in the
    /// process. The server owns it: it closes when the server stops, and nothing needs closing.
    ///
    /// ```swift
    /// .action("incrementCounter") { (context: inout ActorContext<Empty>, key: String, by: Int) async throws(ActorError) -> Int in
    ///     try await context.client.getOrCreate("counter", key: [key]).action("increment", arguments: [by])
    /// }
    /// ```
    ///
    /// Actions of one actor run one at a time, so an action that calls its own actor (directly or
    /// through others) waits for itself until the action timeout fails it.
    public var client: RivetKitClient { runtime.client }
}
