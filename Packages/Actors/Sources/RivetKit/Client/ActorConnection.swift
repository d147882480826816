import RpcDo
import RpcTransportNIO
import Synchronization
import RpcWire
import RpcTransport

/// A realtime connection to one actor over RivetKit's gateway WebSocket, kept alive by the
/// shared ``ReconnectingConnection``.
///
/// "Connected" means the actor's `Init` arrived: it is the supervising connection's ready
/// handshake, so a socket on which `Init` does not arrive within
/// ``ClientConfig/connectTimeout`` fails its attempt. Every active event subscription is sent
/// again after each `Init`. Actions made while not connected are held (up to
/// ``ClientConfig/maxQueuedActions``) and sent after the next `Init`, after the subscriptions,
/// in the order they were made. A lost connection rejects the actions in flight (with the close
/// reason's structured error when it has one; an action made just as the connection was lost
/// may have run), reports the error, and reconnects for ever with
/// ``ClientConfig/reconnectBackoff``.
///
/// Actions run through RpcDo's ``ManagedChannel``, as RpcDo's calls and Tinyvex's
/// requests do: ``ClientConfig/interceptors`` see each one (its name as the call's `method`,
/// its metadata) before it is sent and may refuse it, and each waits at most
/// ``ClientConfig/actionTimeout`` for its answer once its connection is ready
/// (`client.action_timeout` after that). Actions are not idempotent: one that reached the
/// connection is never sent again.
///
/// Before the first `Init`, a failure to open is retried with the same backoff (growing across
/// attempts) only when it says the actor is stale (``ActorCloseReason/isStaleActor``: not
/// found yet, starting, stopping, destroyed; for an id handle only the passing states, as an
/// id that is not found stays so); any other (a refused token, an unreachable server, a
/// creation input over ``ClientConfig/maxInputSize``, no `Init` in time) rejects the waiting
/// actions, is reported once (as `client.connection_open_failed` unless it is already
/// structured) and goes back to ``ActorConnStatus/idle`` without retrying.
///
/// ```swift
/// let connection = client.getOrCreate("counter", key: ["a"]).connect()
/// connection.start()
/// for await args in connection.events("newCount") { print(args) }
/// ```
///
/// Or scoped, disposed when the body returns or throws:
///
/// ```swift
/// let count = try await client.getOrCreate("counter", key: ["a"]).withConnection { connection in
///     try await connection.action("increment", args: [1])
/// }
/// ```
public final class ActorConnection: Sendable {
    /// The actor's identity and options.
    public let options: ActorOptions
    let client: RivetKitClient

    private typealias Waiter = CheckedContinuation<JSONValue, any Error>
    private typealias Core = ActorConnectionCore<any MessageTransport, Waiter>

    /// An action made whose client interceptors have not passed it on yet: its request frame,
    /// encoded before it is admitted.
    private struct Made {
        var frame: [UInt8]
    }

    private struct State {
        var core: Core
        /// The number of the current start, if started (and not disposed or failed since).
        var started: UInt64?
        /// How many starts there were.
        var starts: UInt64 = 0
        /// The actions made whose interceptors have not passed them on yet, by id.
        var made: [UInt64: Made] = [:]
        /// The actions held here while not connected, waiting to go on to their time limit
        /// once a link is ready (or once they are settled).
        var heldWaiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        /// The ready handshakes waiting for `Init`, by generation.
        var initWaiters: [UInt64: CheckedContinuation<Void, any Error>] = [:]
        /// Generations on which `Init` arrived before their handshake waited.
        var initArrived: Set<UInt64> = []
        var eventListeners: [String: [UInt64: AsyncStream<[JSONValue]>.Continuation]] = [:]
        var errorListeners: [UInt64: AsyncStream<ActorError>.Continuation] = [:]
        var statusListeners: [UInt64: AsyncStream<ActorConnStatus>.Continuation] = [:]
        var changeListeners: [UInt64: AsyncStream<Change>.Continuation] = [:]
        var nextListener: UInt64 = 0
    }

    private let state: Mutex<State>
    /// Why the open failed for good, as the retry decision saw it (it runs under the supervising
    /// connection's lock, so it keeps it here rather than in ``state``).
    private let openFailure = Mutex<ActorError?>(nil)
    /// The supervising connection: made once, started by each ``start()``, closed by
    /// ``dispose()``.
    private let supervisor: ReconnectingConnection
    /// Interceptors, time limits and ids of the actions, on ``supervisor``.
    private let channel: ManagedChannel<ActorError>
    /// Whether an `Init` arrived since the last start (read by the retry decision: a link
    /// whose `Init` arrived and that closed before it was made ready was connected all the same).
    private let initSeen = Atomic<Bool>(false)
    /// The task that waits for each start's first connection.
    private let tasks = OwnedTasks<String>()
    /// What the hooks, ``Admission`` and the deadlines of the attempts reach the connection by.
    private let relay: Relay
    /// Whether the client has interceptors of its own: without them an action is admitted by
    /// its first attempt, without going through ``Admission``.
    private let intercepted: Bool
    /// Whether a link was ready at the last change of the core's ready link, read without the
    /// lock to choose how an action is admitted (a stale answer only picks the slower way, or
    /// lets an action racing a lost link be sent after the next one in another order).
    private let readyHint = Atomic<Bool>(false)
    /// How many times the connection was disposed (counted under the lock, read without it by
    /// an action that failed).
    private let disposalCount = Atomic<UInt64>(0)

    init(client: RivetKitClient, options: ActorOptions) {
        self.client = client
        self.options = options
        self.state = Mutex(State(core: Core(queueLimit: client.config.maxQueuedActions)))
        let relay = Relay()
        self.relay = relay
        let config = client.config
        let supervisor = Self.makeSupervisor(client: client, options: options, relay: relay)
        self.supervisor = supervisor
        self.intercepted = !config.interceptors.isEmpty
        self.channel = ManagedChannel(
            connection: supervisor,
            settings: ManagedChannel.Settings(
                requestTimeout: config.actionTimeout, maxRetries: 2, backoff: config.reconnectBackoff,
                maxRetryDelay: config.reconnectBackoff.maxDelay,
                interceptors: config.interceptors.isEmpty ? [] : config.interceptors + [Admission(relay: relay)]))
        relay.set(self)
    }

    /// Lets the supervising connection's hooks, the channel's last interceptor and the
    /// deadlines of the attempts (tagged with their action's id) reach the connection without
    /// holding it (it holds them).
    private final class Relay: TaggedExpiringWait {
        private struct Weak: Sendable {
            weak var connection: ActorConnection?
        }

        private let reach = Mutex(Weak())

        func set(_ connection: ActorConnection) {
            reach.withLock { $0.connection = connection }
        }

        var connection: ActorConnection? {
            reach.withLock { $0.connection }
        }

        func expire(tag: UInt64) {
            connection?.expired(tag)
        }
    }

    /// The deadline of action `id`'s attempt passed: it is given up.
    private func expired(_ id: UInt64) {
        let failure = AttemptDeadline<ActorError>.failure(after: client.config.actionTimeout)
        state.withLock { $0.core.abandon(id) }?.resume(throwing: failure)
    }

    /// The last interceptor of every action: once the client's interceptors passed it on, the
    /// action is held in order by the core (until connected, when it is not) and the call goes
    /// on to its attempts, each of which writes what is held up to it on the ready link and
    /// waits for its answer within its time limit.
    private struct Admission: ClientInterceptor {
        let relay: Relay

        func intercept<Output>(_ call: ClientCall, next: (ClientCall) async throws -> Output) async throws -> Output {
            guard let connection = relay.connection else {
                throw ActorError(.clientDisposed, "the connection is gone")
            }
            try await connection.admit(call.id)
            return try await next(call)
        }
    }

    // MARK: Observing

    /// The current status.
    public var status: ActorConnStatus { state.withLock { $0.core.status } }
    /// The actor's id, once an `Init` arrived.
    public var actorId: String? { state.withLock { $0.core.actorId } }
    /// This connection's id at the actor, once an `Init` arrived.
    public var connectionId: String? { state.withLock { $0.core.connectionId } }
    /// The last connection-level error.
    public var lastError: ActorError? { state.withLock { $0.core.lastError } }

    /// How many actions wait for their answer (sent or held until connected): lets tests see
    /// that an action was made instead of guessing at its timing.
    var pendingActionCount: Int { state.withLock { $0.core.pendingCount } }

    /// The executor of the event loop the current socket reads and writes on, once connected;
    /// `nil` before that and while reconnecting (a new socket may run on another loop).
    ///
    /// Awaiting actions from code that prefers this executor costs no hand-off between threads:
    /// each request is written, and its answer resumes the caller, on the socket's own thread.
    ///
    /// ```swift
    /// try await withTaskExecutorPreference(connection.executor) {
    ///     for _ in 0 ..< 100 { _ = try await connection.action("getCount", args: []) }
    /// }
    /// ```
    ///
    /// Code running there shares the thread with the socket's I/O: move blocking or long
    /// computations off it (`withTaskExecutorPreference(globalConcurrentExecutor) { … }`).
    public var executor: (any TaskExecutor)? {
        state.withLock { $0.core.status == .connected ? $0.core.ready?.link.executor : nil }
    }

    /// The statuses from now on, starting with the current one.
    public func statusUpdates() -> AsyncStream<ActorConnStatus> {
        let (stream, continuation) = AsyncStream<ActorConnStatus>.makeStream()
        let id = state.withLock { state -> UInt64 in
            state.nextListener += 1
            state.statusListeners[state.nextListener] = continuation
            continuation.yield(state.core.status)
            return state.nextListener
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.statusListeners.removeValue(forKey: id) }
        }
        return stream
    }

    /// Connection-level errors from now on: lost connections, `Error` frames without an
    /// action, open failures.
    public func errors() -> AsyncStream<ActorError> {
        let (stream, continuation) = AsyncStream<ActorError>.makeStream()
        let id = state.withLock { state -> UInt64 in
            state.nextListener += 1
            state.errorListeners[state.nextListener] = continuation
            return state.nextListener
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.errorListeners.removeValue(forKey: id) }
        }
        return stream
    }

    /// A status or an error, as ``changes()`` gives them: each dated by how many times the
    /// connection was ready (connected) when it happened.
    enum Change: Sendable {
        /// The status now current.
        case status(ActorConnStatus, readies: UInt64)
        /// A connection-level error.
        case error(ActorError, readies: UInt64)
    }

    /// The statuses and the errors from now on, starting with the current status: what an
    /// observer that shows both watches. An error dated before the latest `connected` status
    /// it saw happened before that connection, however late it arrives.
    func changes() -> AsyncStream<Change> {
        let (stream, continuation) = AsyncStream<Change>.makeStream()
        let id = state.withLock { state -> UInt64 in
            state.nextListener += 1
            state.changeListeners[state.nextListener] = continuation
            continuation.yield(.status(state.core.status, readies: state.core.readies))
            return state.nextListener
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.changeListeners.removeValue(forKey: id) }
        }
        return stream
    }

    /// The positional arguments of every event `name` from now on. The first listener of a
    /// name subscribes (`SubscriptionRequest` with `subscribe: true`), the last one to go
    /// unsubscribes.
    public func events(_ name: String) -> AsyncStream<[JSONValue]> {
        let (stream, continuation) = AsyncStream<[JSONValue]>.makeStream(
            bufferingPolicy: .bufferingNewest(max(client.config.maxBufferedEvents, 1)))
        let (id, effects) = state.withLock { state -> (UInt64, [Core.Effect]) in
            state.nextListener += 1
            state.eventListeners[name, default: [:]][state.nextListener] = continuation
            return (state.nextListener, state.core.listenerAdded(name))
        }
        perform(effects)
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            let effects = self.state.withLock { state -> [Core.Effect] in
                guard state.eventListeners[name]?.removeValue(forKey: id) != nil else { return [] }
                if state.eventListeners[name]?.isEmpty == true { state.eventListeners[name] = nil }
                return state.core.listenerRemoved(name)
            }
            self.perform(effects)
        }
        return stream
    }

    // MARK: Lifecycle

    /// Starts connecting (from ``ActorConnStatus/idle``; otherwise does nothing).
    public func start() {
        let started = state.withLock { state -> (UInt64, [Core.Effect])? in
            guard state.started == nil, let effects = state.core.start() else { return nil }
            state.starts += 1
            state.started = state.starts
            return (state.starts, effects)
        }
        guard let (start, effects) = started else { return }
        openFailure.withLock { $0 = nil }
        initSeen.store(false, ordering: .sequentiallyConsistent)
        perform(effects)
        let supervisor = self.supervisor
        tasks.spawn("start") { [weak self] in
            do throws(TransportError) {
                try await supervisor.start()
            } catch {
                await self?.openFailed(error, start: start)
            }
        }
    }

    /// Closes the connection with 1000 `Disposed`, rejects every waiting action with
    /// `client.disposed` and returns to ``ActorConnStatus/idle``; ``start()`` connects again.
    public func dispose() async {
        let (wasStarted, effects, held) = state.withLock { state in
            defer {
                state.started = nil
                disposalCount.add(1, ordering: .relaxed)
                readyHint.store(false, ordering: .relaxed)
            }
            let effects = state.core.dispose(ActorError(.clientDisposed, "the connection was disposed"))
            return (state.started != nil, effects, Self.takeHeld(&state))
        }
        perform(effects)
        for waiter in held { waiter.resume() }
        if wasStarted {
            await supervisor.close(ending: { transport in await transport.close(code: .normal, reason: "Disposed") })
        }
        await tasks.cancelAll()
    }

    /// Starts the connection, runs `body` with it, and disposes it when `body` returns or
    /// throws.
    ///
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    public func withConnection<T>(
        isolation: isolated (any _Concurrency.Actor)? = #isolation,
        _ body: (ActorConnection) async throws -> T
    ) async throws -> T {
        start()
        let outcome: Result<T, any Error>
        do {
            outcome = .success(try await body(self))
        } catch {
            outcome = .failure(error)
        }
        await dispose()
        return try outcome.get()
    }

    // MARK: Actions

    /// Calls action `name` with positional JSON arguments and returns its output; held until
    /// connected.
    ///
    /// The action runs through ``ClientConfig/interceptors`` (as a call whose `method` is
    /// `name`, with `metadata`, which stays in the client: RivetKit's frames carry none), and
    /// waits at most ``ClientConfig/actionTimeout`` for its answer once its connection is ready.
    ///
    /// - Parameters:
    ///   - name: The action's name.
    ///   - args: Its positional arguments.
    ///   - metadata: Per-action values for the interceptors.
    /// - Throws: ``ActorError``: the action's error, the connection's when it is lost or
    ///   closed with a reason, `client.connection_lost`, `client.not_connected` when
    ///   ``ClientConfig/maxQueuedActions`` actions wait already, `client.action_timeout`,
    ///   `client.disposed`, `client.cancelled`, or an interceptor's failure (an ``ActorError``
    ///   as thrown, any other as `client.internal_error`).
    nonisolated(nonsending) public func action(_ name: String, args: [JSONValue], metadata: [String: String] = [:]) async throws(ActorError) -> JSONValue {
        guard let tracer = client.tracer else { return try await run(name, args: args, metadata: metadata) }
        // The action's trace context stays in the client (RivetKit's frames carry none): the
        // server's spans join the trace the connection's upgrade carried.
        return try await RpcClientSpan.run(
            "rivetkit.action \(name)", system: "rivetkit", method: name, attributes: ["rivetkit.actor": options.name],
            tracer: tracer, code: { (error: ActorError) in error.rpcFailure.code.rawValue }
        ) { _ throws(ActorError) in
            try await run(name, args: args, metadata: metadata)
        }
    }

    /// ``action(_:args:metadata:)`` without its span.
    private nonisolated(nonsending) func run(_ name: String, args: [JSONValue], metadata: [String: String]) async throws(ActorError) -> JSONValue {
        let call = channel.call(name, timeout: client.config.actionTimeout, isIdempotent: false, metadata: metadata)
        let id = call.id
        let frame = RivetMessageCodec.frame(ClientMessage.actionRequest(id: id, name: name, args: args))
        let disposals = disposalCount.load(ordering: .relaxed)
        do {
            if intercepted {
                state.withLock { $0.made[id] = Made(frame: frame) }
                return try await channel.perform(call) { (link, sent, deadline) async throws(ActorError) -> JSONValue in
                    try await self.attempt(id, frame: nil, on: link, sent: sent, deadline: deadline)
                }
            }
            // Without interceptors of the client's own: while not connected, held now, in the
            // order made; while connected, held by its first attempt, in the same turn of the
            // lock that writes it.
            let held = !readyHint.load(ordering: .relaxed)
            if held { try await admit(id, frame: frame) }
            return try await channel.perform(call) { (link, sent, deadline) async throws(ActorError) -> JSONValue in
                try await self.attempt(id, frame: held ? nil : frame, on: link, sent: sent, deadline: deadline)
            }
        } catch {
            // Never sent if it was still held; a late answer is dropped.
            let waiter = state.withLock { state in
                state.made[id] = nil
                return state.core.abandon(id)
            }
            let disposed = disposalCount.load(ordering: .relaxed) != disposals
            // A dispose made while the action waited ends it as disposed, whichever step of
            // the channel (waiting for a link, or for the answer) saw the connection stop.
            let failure = disposed && error.errorCode.group == "client" && error.errorCode != .clientActionTimeout
                ? ActorError(.clientDisposed, "the connection was disposed") : error
            waiter?.resume(throwing: failure)
            throw failure
        }
    }

    /// Holds action `id` in the core once the interceptors passed it on (the order actions are
    /// sent in); while not connected, waits until a link is ready (or the action is settled:
    /// disposed, open failed), as the channel's attempts need a running connection.
    ///
    /// - Parameter frame: Its request frame; `nil` to take the one ``action(_:args:metadata:)``
    ///   left for the interceptors.
    /// - Throws: ``ActorError``: the refusal (too many held), or the failure the action got
    ///   while held.
    private nonisolated(nonsending) func admit(_ id: UInt64, frame: [UInt8]? = nil) async throws(ActorError) {
        // One turn of the lock while connected (the usual case): held, and any failure taken.
        let connected = try state.withLock { state throws(ActorError) -> Bool in
            guard let frame = frame ?? state.made.removeValue(forKey: id)?.frame else {
                throw ActorError(.clientInternalError, "action \(id) was not made")
            }
            let connected = state.core.ready != nil
            if let refusal = state.core.hold(id, frame: frame, limited: !connected) { throw refusal }
            if connected, let failure = state.core.takeFailure(id) { throw failure }
            return connected
        }
        guard !connected else { return }
        await waitWhileHeld(id)
        if let failure = state.withLock({ $0.core.takeFailure(id) }) { throw failure }
    }

    /// Waits until a link is ready or action `id` is settled (or the task is cancelled).
    private func waitWhileHeld(_ id: UInt64) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let goOn = state.withLock { state -> Bool in
                    if Task.isCancelled || state.core.ready != nil || state.core.isSettled(id) { return true }
                    state.heldWaiters[id] = continuation
                    return false
                }
                if goOn { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.heldWaiters.removeValue(forKey: id) }?.resume()
        }
    }

    /// One attempt of action `id` on the ready `link`: the actions held up to it are written
    /// on it in order (so it is, unless an earlier attempt wrote it), then it waits for its
    /// answer. When its deadline passes, or its caller is cancelled, it gives the action up.
    ///
    /// - Throws: ``ActorError``: the answer's error, `client.connection_lost` when the link is
    ///   lost after it was sent, `client.not_connected` (not sent) when the link was lost
    ///   before, `client.action_timeout`, `client.cancelled`.
    private nonisolated(nonsending) func attempt(
        _ id: UInt64, frame: [UInt8]?, on link: ReconnectingConnection.Link, sent: SentFlag,
        deadline: AttemptDeadline<ActorError>
    ) async throws(ActorError) -> JSONValue {
        var armed: AttemptDeadline<ActorError>.Armed?
        defer { armed?.disarm() }
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: Waiter) in
                    let effects = state.withLock { state -> [Core.Effect] in
                        if Task.isCancelled {
                            _ = state.core.abandon(id)
                            return [.answer(continuation, .failure(ActorError(.clientCancelled, "cancelled")))]
                        }
                        // An action admitted by its attempt is held by the first one (a later
                        // one finds it held still, or sent).
                        if let frame, !state.core.isPending(id) {
                            _ = state.core.hold(id, frame: frame, limited: false)
                        }
                        guard let frames = state.core.flush(through: id, generation: link.generation) else {
                            let lost = ActorError(.clientNotConnected, "the connection was lost before the action was sent")
                            return [.answer(continuation, .failure(lost))]
                        }
                        // Written under the lock, so that concurrent attempts keep the order held.
                        for frame in frames { Self.write(frame, on: link.transport) }
                        sent.set()
                        return state.core.wait(id, waiter: continuation)
                    }
                    perform(effects)
                    armed = deadline.arm(relay, tag: id)
                }
            } onCancel: {
                state.withLock { $0.core.abandon(id) }?.resume(throwing: ActorError(.clientCancelled, "cancelled"))
            }
        } catch let error as ActorError {
            throw error
        } catch {
            throw ActorError(.clientInternalError, "\(error)")
        }
    }

    private static func takeHeld(_ state: inout State) -> [CheckedContinuation<Void, Never>] {
        defer { state.heldWaiters = [:] }
        return Array(state.heldWaiters.values)
    }

    // MARK: The supervising connection

    private static func makeSupervisor(client: RivetKitClient, options: ActorOptions, relay: Relay) -> ReconnectingConnection {
        let config = client.config
        let lookup = options.lookup
        var configuration = ReconnectingConnectionConfiguration(
            reconnect: ReconnectPolicy(maxAttempts: nil, backoff: config.reconnectBackoff),
            connectTimeout: config.connectTimeout,
            handshakeTimeout: config.connectTimeout,
            offlineQueueLimit: config.maxQueuedActions)
        configuration.protocolName = "rivetkit"
        configuration.observability = config.observability
        return ReconnectingConnection(
            configuration: configuration,
            // The headers carry the trace context the connection was started in, when traced.
            factory: { [client, options] headers in try await Self.open(client: client, options: options, headers: headers) },
            handler: .transports { transport, generation in relay.connection?.attach(transport, generation: generation) },
            hooks: ReconnectingConnection.Hooks(
                handshake: { link in try await relay.connection?.awaitInit(on: link.generation) },
                decideRetry: { error, context in
                    let connection = relay.connection
                    // After the first Init: always again. Before it: only for a stale actor.
                    if context.everConnected || connection?.initSeen.load(ordering: .sequentiallyConsistent) == true {
                        return .retry
                    }
                    let failure = Self.openError(error, closure: context.closure)
                    if Self.isRetryable(failure, lookup: lookup) { return .retry }
                    connection?.openFailure.withLock { $0 = failure }
                    return .goIdle
                },
                ready: { link in relay.connection?.linkReady(link) }))
    }

    /// The first connection of start `start` could not be made: unless it was disposed (or
    /// started again) meanwhile, the waiting actions are rejected, the error is reported once,
    /// and the status goes back to idle.
    private func openFailed(_ error: TransportError, start: UInt64) async {
        let failure = openFailure.withLock { $0 } ?? Self.openError(error, closure: nil)
        guard state.withLock({ $0.started == start }) else { return }
        // Closed while this start is current, so that a start after it is not closed.
        await supervisor.close()
        let outcome = state.withLock { state -> ([Core.Effect], [CheckedContinuation<Void, Never>])? in
            guard state.started == start else { return nil }
            state.started = nil
            readyHint.store(false, ordering: .relaxed)
            return (state.core.openFailed(failure), Self.takeHeld(&state))
        }
        guard let (effects, held) = outcome else { return }
        perform(effects)
        for waiter in held { waiter.resume() }
    }

    private func attach(_ transport: any MessageTransport, generation: UInt64) {
        transport.start { [weak self] event in
            switch event {
            case .message(let message):
                self?.receive(message, from: transport, generation: generation)
            case .closed(let closure):
                self?.closed(closure, generation: generation)
            }
        }
    }

    /// The ready handshake: returns once the actor's `Init` arrived on the link of
    /// `generation` (and the subscriptions and the actions held here were written on it).
    private func awaitInit(on generation: UInt64) async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let arrived = state.withLock { state -> Bool? in
                    if Task.isCancelled { return nil }
                    if state.initArrived.remove(generation) != nil { return true }
                    state.initWaiters[generation] = continuation
                    return false
                }
                switch arrived {
                case nil: continuation.resume(throwing: CancellationError())
                case true?: continuation.resume()
                case false?: break
                }
            }
        } onCancel: {
            let waiter = state.withLock { $0.initWaiters.removeValue(forKey: generation) }
            waiter?.resume(throwing: CancellationError())
        }
    }

    private func linkReady(_ link: ReconnectingConnection.Link) {
        let (effects, held) = state.withLock { state in
            defer { readyHint.store(state.core.ready != nil, ordering: .relaxed) }
            return (state.core.linkReady(link.transport, generation: link.generation), Self.takeHeld(&state))
        }
        perform(effects)
        for waiter in held { waiter.resume() }
    }

    private func receive(_ frame: TransportMessage, from transport: any MessageTransport, generation: UInt64) {
        let message: ServerMessage
        do {
            guard frame.kind == .text else { return }
            message = try RivetMessageCodec.decodeServerMessage(utf8: frame.bytes)
        } catch {
            return  // RivetKit's client drops frames it cannot read.
        }
        switch message {
        case .initialize(let actorId, let connectionId):
            initSeen.store(true, ordering: .sequentiallyConsistent)
            let (frames, waiter) = state.withLock { state in
                let frames = state.core.initReceived(generation: generation, actorId: actorId, connectionId: connectionId)
                let waiter = state.initWaiters.removeValue(forKey: generation)
                if waiter == nil { state.initArrived.insert(generation) }
                return (frames, waiter)
            }
            // Written before the handshake returns, so before the actions held.
            for frame in frames { Self.write(frame, on: transport) }
            waiter?.resume()
        case .actionResponse(let id, let output):
            perform(state.withLock { $0.core.answered(id, .success(output)) })
        case .error(let error, let actionId?):
            perform(state.withLock { $0.core.answered(actionId, .failure(error)) })
        case .error(let error, nil):
            perform(state.withLock { $0.core.connectionError(error) })
        case .event(let name, let args):
            let listeners = state.withLock { Array(($0.eventListeners[name] ?? [:]).values) }
            for listener in listeners { listener.yield(args) }
        }
    }

    private func closed(_ closure: TransportClosure, generation: UInt64) {
        let effects = state.withLock { state in
            state.initArrived.remove(generation)
            defer { readyHint.store(state.core.ready != nil, ordering: .relaxed) }
            return state.core.linkClosed(generation: generation, reason: closure.reason, description: "\(closure)")
        }
        perform(effects)
    }

    // MARK: Effects

    private func perform(_ effects: [Core.Effect]) {
        for effect in effects {
            switch effect {
            case .answer(let waiter, .success(let output)):
                waiter.resume(returning: output)
            case .answer(let waiter, .failure(let error)):
                waiter.resume(throwing: error)
            case .write(let frames, let transport):
                for frame in frames { Self.write(frame, on: transport) }
            case .report(let error, let readies):
                let (listeners, observers) = state.withLock {
                    (Array($0.errorListeners.values), Array($0.changeListeners.values))
                }
                for listener in listeners { listener.yield(error) }
                for observer in observers { observer.yield(.error(error, readies: readies)) }
            case .publishStatus:
                let (status, readies, listeners, observers) = state.withLock {
                    ($0.core.status, $0.core.readies, Array($0.statusListeners.values), Array($0.changeListeners.values))
                }
                for listener in listeners { listener.yield(status) }
                for observer in observers { observer.yield(.status(status, readies: readies)) }
            }
        }
    }

    private static func write(_ frame: [UInt8], on transport: any MessageTransport) {
        do {
            try transport.enqueue(.text(utf8: frame))
        } catch {
            // The loss of the transport is reported through its closure.
        }
    }

    // MARK: Opening

    private static func open(
        client: RivetKitClient, options: ActorOptions, headers: [String: String]
    ) async throws -> any MessageTransport {
        let url = try connectURL(
            config: try await client.resolvedState().config, options: options, maxInputSize: client.config.maxInputSize)
        var subprotocols = ["rivet", "rivet_encoding.json"]
        if let params = options.params {
            subprotocols.append("rivet_conn_params." + HTTPQuery.percentEncode(params.description))
        }
        let (transport, subprotocol) = try await client.transports.openSocketWithHeaders(url, subprotocols, headers)
        guard subprotocol == "rivet" else {
            await transport.close(code: .protocolError, reason: "")
            throw ActorError(.clientConnectionOpenFailed, "the server did not select rivet")
        }
        return transport
    }

    /// The structured error an open failure carries (the factory's own under the transport's
    /// wrapping, or the close reason of a socket closed before `Init`), or
    /// `client.connection_open_failed`.
    private static func openError(_ failure: TransportError, closure: TransportClosure?) -> ActorError {
        if let reason = closure?.reason, let parsed = ActorCloseReason(parsing: reason)?.error() { return parsed }
        var current: (any Error)? = failure
        while let error = current {
            if let actorError = error as? ActorError { return actorError }
            current = (error as? TransportError)?.cause
        }
        if let closure {
            return ActorError(.clientConnectionOpenFailed, "the connection closed before the actor's Init: \(closure)")
        }
        return ActorError(.clientConnectionOpenFailed, "the connection could not be opened: \(failure.message)")
    }

    /// Whether an open failure is tried again: a stale actor, which may exist or be ready on
    /// the next attempt; for an id, only while it starts or stops (an id that is not found or
    /// destroyed stays so).
    private static func isRetryable(_ error: ActorError, lookup: ActorLookup) -> Bool {
        let reason = ActorCloseReason(group: error.group, code: error.code)
        guard reason.isStaleActor else { return false }
        guard lookup.isId else { return true }
        return error.code != "not_found" && !error.code.hasPrefix("destroyed_")
    }

    /// The WebSocket URL of `options`' actor: `/gateway/{id}[@token]/connect` for an id, the
    /// query gateway for a key.
    ///
    /// - Throws: ``ActorError`` `client.config_error` when the encoded creation input is longer
    ///   than `maxInputSize`.
    private static func connectURL(
        config: ResolvedClientConfig, options: ActorOptions, maxInputSize: Int
    ) throws(ActorError) -> String {
        let base = config.webSocketEndpoint
        var query = ["rvt-namespace=\(ActorKey.formEncode(config.namespace))"]
        switch options.lookup {
        case .id(let id):
            // The token travels in the path segment only, never in a header or the query.
            return "\(base)/gateway/\(ActorHandle.gatewaySegment(actorId: id, token: config.token))/connect"
        case .get:
            query.append("rvt-method=get")
            if let key = ActorKey.queryValue(options.key) { query.append("rvt-key=\(key)") }
            if let token = config.token { query.append("rvt-token=\(ActorKey.formEncode(token))") }
        case .getOrCreate:
            query += ["rvt-method=getOrCreate", "rvt-runner=\(ActorKey.formEncode(config.runnerName))"]
            if let key = ActorKey.queryValue(options.key) { query.append("rvt-key=\(key)") }
            query.append("rvt-crash-policy=sleep")
            if let token = config.token { query.append("rvt-token=\(ActorKey.formEncode(token))") }
            if let input = options.createWithInput {
                let encoded = Base64.encode(RivetCBOR.encode(input), urlSafe: true)
                guard encoded.utf8.count <= maxInputSize else {
                    throw ActorError(
                        .clientConfigError,
                        "the creation input is \(encoded.utf8.count) bytes in rvt-input, "
                            + "over the limit of \(maxInputSize) (maxInputSize)")
                }
                query.append("rvt-input=\(encoded)")
            }
            if let region = options.createInRegion { query.append("rvt-region=\(ActorKey.formEncode(region))") }
        }
        return "\(base)/gateway/\(HTTPQuery.percentEncode(options.name))/connect?\(query.joined(separator: "&"))"
    }
}
