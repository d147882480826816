import NIOHTTP1
import RivetKit
import RpcTransport
import Tracing
import Synchronization

/// One actor instance in memory: its state, its lifecycle (``ActorLifecycle``), its
/// connections, and the queue that runs its actions and state-changing hooks one at a time,
/// saving the state after each that changed it and before answering.
///
/// The directory makes an instance and calls ``start(created:)``; the instance then serves
/// until the directory puts it to sleep (``sleep()``) or destroys it (``destroy()``).
final class ActorInstance: Sendable {
    let record: StoredActor
    let behavior: any ActorBehavior
    let runtime: ActorRuntime
    /// How long one action may run before its caller gets `actor.action_timed_out`.
    let actionTimeout: Duration
    private let store: any ActorStore
    private let queue = SerialQueue()
    private let startTicket: UInt64
    private let maxConnections: Int
    private let maxStateSize: Int
    private let maxFrameSize: Int
    private let gracePeriod: Duration
    private let reportProblem: @Sendable (String) -> Void
    /// What the server records about actions; `nil` when nothing is.
    private let observation: ActorObservation?

    private struct Activity {
        var state: ActorStateValue
        var lifecycle: ActorLifecycle
        /// Realtime connections, counted against the connection limit.
        var realtime = 0
        /// Why the start failed, once it has.
        var startFailure: ActorError?
        /// Waiters for a change of phase.
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let activity: Mutex<Activity>

    /// An instance starting from `state`, its saved state as ``ActorBehavior/loadState(_:)``
    /// read it; nothing runs before ``start(created:)``.
    init(
        record: StoredActor, state: ActorStateValue, behavior: any ActorBehavior, store: any ActorStore,
        configuration: ActorServerConfiguration, now: ContinuousClock.Instant = .now,
        observation: ActorObservation? = nil
    ) {
        self.observation = observation
        self.record = record
        self.behavior = behavior
        self.store = store
        self.maxConnections = configuration.maxConnectionsPerActor
        self.maxStateSize = configuration.maxStateSize
        self.maxFrameSize = configuration.maxMessageSize
        self.gracePeriod = configuration.sleepGracePeriod
        self.reportProblem = configuration.reportProblem
        self.actionTimeout = behavior.options.actionTimeout ?? configuration.actionTimeout
        self.runtime = ActorRuntime(
            actorId: record.id, name: record.name, key: record.key,
            broadcaster: ActorBroadcaster(
                maxSubscriptions: configuration.maxSubscriptionsPerConnection,
                maxSubscriptionBytes: configuration.maxSubscriptionBytesPerConnection,
                maxFrameSize: configuration.maxMessageSize))
        let lifecycle = ActorLifecycle(
            now: now, sleepTimeout: behavior.options.sleepTimeout ?? configuration.sleepTimeout,
            noSleep: behavior.options.noSleep)
        self.activity = Mutex(Activity(state: state, lifecycle: lifecycle))
        // The start hooks run before anything else the queue runs.
        self.startTicket = queue.ticket()
    }

    /// The broadcaster of the instance's events.
    var broadcaster: ActorBroadcaster { runtime.broadcaster }

    /// The state in memory (saved already).
    var state: JSONValue { activity.withLock { $0.state.json } }

    /// The lifecycle, for inspection.
    var lifecycle: ActorLifecycle { activity.withLock { $0.lifecycle } }

    /// Whether the instance is being, or has been, destroyed.
    var isDestroyed: Bool { activity.withLock { $0.lifecycle.isDestroyed } }

    // MARK: Start

    /// Runs the start hooks: `onCreate` (when `created`), `createVars`, `onWake`. A failure
    /// stops the instance and is rethrown (and given to whoever waits in ``ready()``).
    func start(created: Bool) async throws(ActorError) {
        do throws(ActorError) {
            try await queue.run(ticket: startTicket) { () async throws(ActorError) -> Void in
                if created {
                    try await self.runLifecycleHook(.create)
                }
                self.runtime.currentVars = try await self.behavior.makeVars(state: self.currentState, runtime: self.runtime)
                try await self.runLifecycleHook(.wake)
            }
        } catch {
            changePhase { $0.lifecycle.failedToStart(); $0.startFailure = error }
            await runtime.tasks.close()
            throw error
        }
        changePhase { $0.lifecycle.started(now: .now) }
    }

    /// Returns once the start hooks have run.
    ///
    /// - Throws: The start's error when it failed.
    func ready() async throws(ActorError) {
        await waitForPhase { $0.lifecycle.phase != .starting }
        if let failure = activity.withLock({ $0.startFailure }) { throw failure }
    }

    // MARK: Holds

    /// Takes a hold on the instance (a connection or a request) unless it is stopping; returns
    /// whether it did. Every hold taken must be released with ``leave()``.
    func enter() -> Bool {
        activity.withLock { $0.lifecycle.enter() }
    }

    /// Releases a hold.
    func leave() {
        activity.withLock { $0.lifecycle.leave(now: .now) }
    }

    // MARK: Actions

    /// A place in the action queue, for a caller that must keep its actions in order.
    func ticket() -> UInt64 {
        queue.ticket()
    }

    /// Runs an action after the ones before it (those of earlier tickets); the new state is
    /// saved before this returns. Without a `ticket` (an HTTP action, a schedule), an action
    /// with a synchronous body on an idle actor runs at once
    /// (``performImmediately(_:args:connection:traceParent:)``).
    ///
    /// - Throws: What the action throws; `actor.not_found` when the actor was destroyed
    ///   before the action's turn.
    ///
    /// `traceParent` is the trace context the client sent (``traceParent(of:)``), the parent of
    /// the action's span; without one, the span's parent is the context current here.
    nonisolated(nonsending) func perform(
        _ name: String, args: [JSONValue], connection: ActorConn, ticket: UInt64? = nil,
        traceParent: ServiceContext? = nil
    ) async throws(ActorError) -> JSONValue {
        // Without a ticket taken in arrival order, an action that does not suspend may run at
        // once, as it does on a realtime connection.
        if ticket == nil, let immediate = performImmediately(name, args: args, connection: connection, traceParent: traceParent) {
            switch immediate {
            case .answered(let outcome): return try outcome.get()
            case .saving(let saving): return try await finish(saving)
            }
        }
        let ticket = ticket ?? queue.ticket()
        guard let observation else {
            return try await run(name, args: args, connection: connection, ticket: ticket)
        }
        let probe = observation.action(name, actor: record.name, parent: traceParent)
        do {
            let output = try await run(name, args: args, connection: connection, ticket: ticket)
            probe.succeeded()
            return output
        } catch {
            probe.failed(error)
            throw error
        }
    }

    /// Runs action `name` at once, on the calling thread, when it was defined with a body that
    /// does not suspend and no other action or hook is queued or running; `nil` otherwise (the
    /// caller then takes a ticket and calls ``perform(_:args:connection:ticket:traceParent:)``).
    ///
    /// An action that left the state as it was is answered here. One that changed it has its
    /// turn kept until ``finish(_:)`` has saved the new state, since a state is saved before the
    /// action is answered.
    func performImmediately(
        _ name: String, args: [JSONValue], connection: ActorConn, traceParent: ServiceContext? = nil
    ) -> ImmediateAction? {
        guard behavior.performsImmediately(name), queue.takeTurnIfIdle() else { return nil }
        let probe = observation?.action(name, actor: record.name, parent: traceParent)
        let before: ActorStateValue
        let after: ActorStateValue
        let output: JSONValue
        do throws(ActorError) {
            before = try stateForAction()
            (after, output) = try behavior.performImmediately(
                name, args: args, state: before, connection: connection, runtime: runtime)
        } catch {
            queue.endTurn()
            probe?.failed(error)
            return .answered(.failure(error))
        }
        guard after.json == before.json else {
            return .saving(ImmediateAction.Saving(before: before, after: after, output: output, probe: probe))
        }
        activity.withLock { $0.state = after }
        queue.endTurn()
        probe?.succeeded()
        return .answered(.success(output))
    }

    /// Saves the state an action run by ``performImmediately(_:args:connection:traceParent:)``
    /// changed, ends its turn and returns its output.
    nonisolated(nonsending) func finish(_ saving: ImmediateAction.Saving) async throws(ActorError) -> JSONValue {
        defer { queue.endTurn() }
        do throws(ActorError) {
            try await commit(saving.after, from: saving.before)
        } catch {
            saving.probe?.failed(error)
            throw error
        }
        saving.probe?.succeeded()
        return saving.output
    }

    /// The trace context a client sent in `headers` (its upgrade's or its HTTP request's), for
    /// ``perform(_:args:connection:ticket:traceParent:)``; `nil` when the server records no
    /// spans, so that nothing is read.
    func traceParent(of headers: HTTPHeaders) -> ServiceContext? {
        observation?.traceParent(of: headers)
    }

    /// ``perform(_:args:connection:ticket:traceParent:)`` without its metrics and span.
    private nonisolated(nonsending) func run(
        _ name: String, args: [JSONValue], connection: ActorConn, ticket: UInt64
    ) async throws(ActorError) -> JSONValue {
        try await queue.run(ticket: ticket) { () async throws(ActorError) -> JSONValue in
            let before = try self.stateForAction()
            let (after, output) = try await self.behavior.perform(
                name, args: args, state: before, connection: connection, runtime: self.runtime)
            try await self.commit(after, from: before)
            return output
        }
    }

    /// The state an action starts from.
    ///
    /// - Throws: `actor.not_found` once the actor is destroyed.
    private func stateForAction() throws(ActorError) -> ActorStateValue {
        let (state, destroyed) = activity.withLock { ($0.state, $0.lifecycle.isDestroyed) }
        guard !destroyed else { throw Self.destroyedError(record.id) }
        return state
    }

    /// Keeps the state an action or hook left: checked, saved (unless the actor is destroyed)
    /// and, when it changed, reported to `onStateChange`.
    private nonisolated(nonsending) func commit(_ after: ActorStateValue, from before: ActorStateValue)
        async throws(ActorError)
    {
        let changed = after.json != before.json
        if changed {
            // Checked before it is stored, so that a saved state can always be read back.
            try Self.check(after.json, limit: maxStateSize)
            if !isDestroyed {
                do {
                    try await store.saveState(id: record.id, state: after.json)
                } catch {
                    throw ActorError(.rivetkitInternalError, "the state could not be saved")
                }
            }
        }
        activity.withLock { $0.state = after }
        if changed {
            await behavior.stateChanged(after, runtime: runtime)
        }
    }

    private var currentState: ActorStateValue { activity.withLock { $0.state } }

    /// Runs a lifecycle hook in the queue's current turn and keeps the state it left.
    private func runLifecycleHook(_ hook: ActorLifecycleHook) async throws(ActorError) {
        let before = currentState
        let after = try await behavior.lifecycle(hook, state: before, runtime: runtime)
        try await commit(after, from: before)
    }

    /// Refuses a state that cannot be stored as JSON (a non-finite number, nesting past the
    /// writer's limit) or whose JSON is over `limit` bytes; the action (or creation) that made
    /// it fails and the state stays as it was.
    static func check(_ state: JSONValue, limit maxStateSize: Int) throws(ActorError) {
        let size: Int
        do {
            size = try state.jsonString().utf8.count
        } catch {
            throw ActorError(.actorStateInvalid, "the new state cannot be stored as JSON: \(error.message)")
        }
        guard size <= maxStateSize else {
            throw ActorError(
                .actorStateTooLarge,
                "the new state is \(size) bytes of JSON, over the limit of \(maxStateSize)",
                metadata: ["size": .integer(Int64(size)), "limit": .integer(Int64(maxStateSize))])
        }
    }

    /// `actor.not_found` for a destroyed actor, with RivetKit's message.
    static func destroyedError(_ id: String) -> ActorError {
        ActorError(.actorNotFound, "The actor does not exist or was destroyed.", metadata: ["actorId": .string(id)])
    }

    // MARK: Connections

    /// Admits a connection: `onBeforeConnect`, `createConnState`, the connection limit (for a
    /// realtime one: `deliver` and `close` given), then it joins the actor's connections and
    /// `onConnect` runs in the queue. The caller holds the instance (``enter()``).
    func connect(
        _ info: ActorConnectionInfo,
        deliver: (@Sendable (String) -> Void)?,
        close: (@Sendable (String) -> Void)?
    ) async throws(ActorError) -> ActorConn {
        try await behavior.beforeConnect(info, state: currentState, runtime: runtime)
        let connState = try await behavior.makeConnState(info, state: currentState, runtime: runtime)
        let realtime = deliver != nil
        if realtime {
            let admitted = activity.withLock { activity -> Bool in
                guard activity.realtime < maxConnections else { return false }
                activity.realtime += 1
                return true
            }
            guard admitted else {
                throw ActorError(.actorTooManyConnections, "the actor has \(maxConnections) connections")
            }
        }
        let connection = ActorConn(
            info: info, state: connState, deliver: deliver, close: close, maxFrameSize: maxFrameSize)
        runtime.add(connection)
        if let deliver { broadcaster.add(connectionId: info.id, deliver: deliver) }
        do throws(ActorError) {
            try await queue.run(ticket: queue.ticket()) { () async throws(ActorError) -> Void in
                let before = self.currentState
                let after = try await self.behavior.connected(connection, state: before, runtime: self.runtime)
                try await self.commit(after, from: before)
            }
        } catch {
            release(connection)
            throw error
        }
        return connection
    }

    /// Runs `onDisconnect` in the queue, then lets the connection go.
    func disconnect(_ connection: ActorConn) async {
        broadcaster.remove(connectionId: connection.id)
        try? await queue.run(ticket: queue.ticket()) { () async -> Void in
            let before = self.currentState
            do throws(ActorError) {
                let after = try await self.behavior.disconnected(connection, state: before, runtime: self.runtime)
                try await self.commit(after, from: before)
            } catch {
                self.reportProblem("actor \(self.record.id): onDisconnect failed: \(error)")
            }
        }
        release(connection)
    }

    private func release(_ connection: ActorConn) {
        broadcaster.remove(connectionId: connection.id)
        runtime.remove(id: connection.id)
        if connection.isRealtime {
            activity.withLock { $0.realtime -= 1 }
        }
    }

    // MARK: Sleep and destroy

    /// Begins sleeping when the idle rule (``ActorLifecycle/canSleep(now:)``) allows it;
    /// returns whether it did. From then on nothing enters; ``sleep()`` finishes.
    func beginSleepIfIdle(now: ContinuousClock.Instant) -> Bool {
        activity.withLock { $0.lifecycle.beginSleep(now: now) }
    }

    /// Runs `onSleep` (its state change saved), waits for `runInBackground` work within the grace
    /// period, and stops.
    func sleep() async {
        try? await queue.run(ticket: queue.ticket()) { () async -> Void in
            do throws(ActorError) {
                try await self.runLifecycleHook(.sleep)
            } catch {
                self.reportProblem("actor \(self.record.id): onSleep failed: \(error)")
            }
        }
        await finishStopping()
    }

    /// Begins stopping whatever holds the instance (its node lost the actor's lease); returns
    /// whether it did. From then on nothing enters; ``evict()`` finishes.
    func beginEviction() -> Bool {
        activity.withLock { $0.lifecycle.beginEviction() }
    }

    /// Closes the realtime connections with `actor.stopping`, so their clients reconnect to the
    /// actor's new node, and stops without `onSleep` (another node may serve the actor now; a
    /// save from here would be refused).
    func evict() async {
        for connection in runtime.connections {
            connection.disconnect(reason: ActorCloseReason(group: "actor", code: "stopping").description)
        }
        await finishStopping()
    }

    /// Begins destroying (a second call, or one while sleeping, does nothing); returns whether
    /// it did. From then on nothing enters and queued actions get `actor.not_found`.
    func beginDestroy() -> Bool {
        activity.withLock { $0.lifecycle.beginDestroy() }
    }

    /// Closes the realtime connections (1000, empty reason), runs `onDestroy` after the action
    /// running now, waits for `runInBackground` work within the grace period, and stops.
    func destroy() async {
        for connection in runtime.connections {
            connection.disconnect(reason: "")
        }
        try? await queue.run(ticket: queue.ticket()) { () async -> Void in
            do throws(ActorError) {
                _ = try await self.behavior.lifecycle(.destroy, state: self.currentState, runtime: self.runtime)
            } catch {
                self.reportProblem("actor \(self.record.id): onDestroy failed: \(error)")
            }
        }
        await finishStopping()
    }

    /// Returns once the instance has stopped.
    func stopped() async {
        await waitForPhase { $0.lifecycle.isStopped }
    }

    /// Cancels the instance's background work (the server is stopping).
    func shutdown() async {
        await runtime.tasks.close()
    }

    private func finishStopping() async {
        let tasks = runtime.tasks
        _ = await Deadline.completes(within: gracePeriod) { await tasks.drain() }
        await tasks.close()
        changePhase { $0.lifecycle.stopped() }
    }

    // MARK: Phase waits

    private func changePhase(_ change: (inout Activity) -> Void) {
        let waiters = activity.withLock { activity in
            change(&activity)
            defer { activity.waiters = [] }
            return activity.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    private func waitForPhase(_ condition: @escaping @Sendable (Activity) -> Bool) async {
        while !activity.withLock({ condition($0) }) {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = activity.withLock { activity -> Bool in
                    if condition(activity) { return true }
                    activity.waiters.append(continuation)
                    return false
                }
                if now { continuation.resume() }
            }
        }
    }
}
