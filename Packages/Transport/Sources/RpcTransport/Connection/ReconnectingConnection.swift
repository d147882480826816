import CoreMetrics
import Logging
import ServiceContextModule
import Synchronization
import Tracing

/// One logical connection kept alive over a series of transports: it opens a transport with
/// the factory (within the connect timeout), watches it, probes it with the keepalive, and
/// when it drops reconnects with the policy's backoff.
///
/// Protocol-agnostic: the ``Handler`` decides what happens on each new transport. With
/// ``Handler/messages(_:)`` the connection reads the transport and passes every message on
/// (and ``send(_:)`` writes, holding messages while offline up to the
/// ``ReconnectingConnectionConfiguration/offlineQueueLimit``); with ``Handler/transports(_:)``
/// a protocol engine takes each transport over (a Cap'n Web session starts on it).
///
/// ```swift
/// try await ReconnectingConnection.withReconnectingConnection(
///     configuration: configuration,
///     factory: { headers in try await openWebSocket(headers: headers) },
///     handler: .messages { message in print(message.text ?? "") }
/// ) { connection in
///     try await connection.send(.text("hello"))
/// }
/// ```
///
/// States are published by ``stateUpdates()`` (and ``onStateChange(_:)``): `connecting`
/// (from creation until the first connection opens), `connected`, `reconnecting(attempt:)` after a loss, and `disconnected` when
/// closed (`nil`) or given up (the last error). The first connection is not retried: when it
/// fails, ``start()`` throws. Headers changed with ``updateHeader(_:value:)`` are passed to the
/// factory on the next (re)connect.
///
/// Lifecycle: ``start()`` runs one supervising task, which ``reconnect(keepTryingOnFailure:ending:)``
/// replaces and ``close(ending:)`` cancels and awaits; use
/// ``withReconnectingConnection(configuration:factory:handler:hooks:isolation:_:)`` so that nothing
/// outlives the scope.
public final class ReconnectingConnection: Sendable {
    /// Opens a transport to the peer, with the headers current at that moment. It must stop
    /// when its task is cancelled (the connect timeout cancels it).
    public typealias TransportFactory = @Sendable (_ headers: [String: String]) async throws -> any MessageTransport

    /// What the connection does with each new transport.
    public enum Handler: Sendable {
        /// Read the transport and pass every inbound message to the closure.
        case messages(@Sendable (TransportMessage) -> Void)
        /// Hand the transport (with its generation, counting from 1) to a protocol engine,
        /// which starts reading it. The connection still watches it for loss.
        case transports(@Sendable (any MessageTransport, UInt64) -> Void)
    }

    /// An open transport and its generation (1 for the first connection, then one more for
    /// each reconnect).
    public struct Link: Sendable {
        /// The transport.
        public let transport: any MessageTransport
        /// Which connection of the series it is, from 1.
        public let generation: UInt64
    }

    /// How the protocol above plugs into the connection.
    public struct Hooks: Sendable {
        /// The ready handshake: runs on each new link (after the handler took it) and returns
        /// once the protocol is ready on it (RivetKit's `Init` arrived, Tinyvex's `connect` was
        /// answered); throwing fails the attempt. Until it returns the connection is not
        /// `connected`, and messages and callers held offline wait. It must stop when its task
        /// is cancelled; ``ReconnectingConnectionConfiguration/handshakeTimeout`` bounds it.
        /// `nil`: a link is ready as soon as it is open.
        public var handshake: (@Sendable (Link) async throws -> Void)?
        /// Decides, per failure, whether to try again (``RetryDecision``); it runs under the
        /// connection's lock, so it must be quick and must not call the connection. `nil`:
        /// ``RetryDecision/default(for:)``.
        public var decideRetry: (@Sendable (TransportError, ConnectionFailureContext) -> RetryDecision)?
        /// Told of each link once it is ready, after the messages held offline were written to it
        /// and before waiting callers resume. It must not block.
        public var ready: (@Sendable (Link) -> Void)?

        /// Creates hooks.
        public init(
            handshake: (@Sendable (Link) async throws -> Void)? = nil,
            decideRetry: (@Sendable (TransportError, ConnectionFailureContext) -> RetryDecision)? = nil,
            ready: (@Sendable (Link) -> Void)? = nil
        ) {
            self.handshake = handshake
            self.decideRetry = decideRetry
            self.ready = ready
        }
    }

    private typealias Machine = ConnectionSupervisor<Link, CheckedContinuation<Link, any Error>>
    private typealias Action = Machine.Action

    /// What the shell's tasks are known by.
    private enum Job: Hashable, Sendable {
        case open(UInt64)
        case handshake(UInt64)
        case watch(UInt64)
        case liveness(UInt64)
        case abort(UInt64)
        case close(UInt64)
        case timer(Machine.Timer)
    }

    private struct State {
        var machine: Machine
        var headers: [String: String]
        var observers = StateObservers<ConnectionState>()
        /// Set once the observers are finished by a close; a later start clears it.
        var observersFinished = false
        var lossHandlers: [@Sendable (UInt64) -> Void] = []
        var stateHandlers: [@Sendable (ConnectionState) -> Void] = []
        /// States decided but not yet told to the handlers and streams, in order.
        var publications: [ConnectionState] = []
        var publishing = false
        var offlineWaits: UInt64 = 0
        /// The offline queue depth last added to the depth meter.
        var reportedDepth = 0
        /// The trace context at ``start()``, injected into the headers of each (re)connect.
        var traceContext: ServiceContext?
    }

    /// The settings.
    public let configuration: ReconnectingConnectionConfiguration
    private let factory: TransportFactory
    private let handler: Handler
    private let hooks: Hooks
    private let lock: Mutex<State>
    private let tasks = OwnedTasks<Job>()
    /// The closes of the transports ``abandon()`` left open, by generation: a set of their own,
    /// as ``tasks`` takes nothing more once abandoned; a later ``close(ending:)`` awaits them.
    private let abandonedCloses = OwnedTasks<UInt64>()
    private var logger: Logger { configuration.logger }
    /// The connection's metrics; `nil` when metrics go nowhere.
    private let metrics: ClientConnectionMetrics?
    /// The tracer whose context goes into the headers; `nil` when spans go nowhere.
    private let tracer: (any Tracer)?

    /// Creates a connection; nothing is opened until ``start()``.
    public init(
        configuration: ReconnectingConnectionConfiguration = ReconnectingConnectionConfiguration(),
        factory: @escaping TransportFactory,
        handler: Handler,
        hooks: Hooks = Hooks()
    ) {
        self.configuration = configuration
        self.factory = factory
        self.handler = handler
        self.hooks = hooks
        let settings = Machine.Settings(
            policy: configuration.reconnect, connectTimeout: configuration.connectTimeout,
            handshakeTimeout: configuration.handshakeTimeout, hasHandshake: hooks.handshake != nil,
            offlineQueueLimit: configuration.offlineQueueLimit)
        self.lock = Mutex(State(machine: Machine(settings: settings), headers: configuration.headers))
        self.metrics = ClientConnectionMetrics(protocolName: configuration.protocolName, observability: configuration.observability)
        self.tracer = configuration.observability.activeTracer
    }

    /// Starts a connection, runs `body` with it, and closes it when `body` returns or throws.
    ///
    /// - Throws: The ``TransportError`` of ``start()`` when the first connection cannot be
    ///   opened, or what `body` throws.
    public static func withReconnectingConnection<T>(
        configuration: ReconnectingConnectionConfiguration = ReconnectingConnectionConfiguration(),
        factory: @escaping TransportFactory,
        handler: Handler,
        hooks: Hooks = Hooks(),
        isolation: isolated (any Actor)? = #isolation,
        _ body: (ReconnectingConnection) async throws -> T
    ) async throws -> T {
        let connection = ReconnectingConnection(configuration: configuration, factory: factory, handler: handler, hooks: hooks)
        try await connection.start()
        let outcome: Result<T, any Error>
        do {
            outcome = .success(try await body(connection))
        } catch {
            outcome = .failure(error)
        }
        await connection.close()
        return try outcome.get()
    }

    // MARK: State

    /// The current state.
    public var state: ConnectionState {
        lock.withLock { $0.machine.published }
    }

    /// The headers the next (re)connect passes to the factory.
    public var headers: [String: String] {
        lock.withLock { $0.headers }
    }

    /// Sets (or with `nil`, removes) a header; it applies on the next (re)connect.
    public func updateHeader(_ name: String, value: String?) {
        lock.withLock { $0.headers[name] = value }
    }

    /// The states from now on, starting with the current one; the stream finishes when the
    /// connection is closed (at once, after `disconnected`, on a closed connection).
    public func stateUpdates() -> AsyncStream<ConnectionState> {
        let (stream, continuation) = AsyncStream<ConnectionState>.makeStream()
        let (current, finished) = lock.withLock { state -> (ConnectionState, Bool) in
            if state.observersFinished { return (state.machine.published, true) }
            state.observers.add(continuation) { [weak self] id in
                _ = self?.lock.withLock { $0.observers.remove(id) }
            }
            return (state.machine.published, false)
        }
        continuation.yield(current)
        if finished { continuation.finish() }
        return stream
    }

    /// Runs `handler` with every new state, synchronously where it is published (before the
    /// streams see it). It must not block.
    public func onStateChange(_ handler: @escaping @Sendable (ConnectionState) -> Void) {
        lock.withLock { $0.stateHandlers.append(handler) }
    }

    /// Runs `handler` with the generation of each transport that is lost (dropped, closed by a
    /// reconnect or by ``close(ending:)``).
    public func onLoss(_ handler: @escaping @Sendable (UInt64) -> Void) {
        lock.withLock { $0.lossHandlers.append(handler) }
    }

    // MARK: Lifecycle

    /// Opens the first connection and starts keeping it alive; returns once it is ready (open,
    /// and its ready handshake done).
    ///
    /// Calling it while running waits for the connection in progress; after ``close(ending:)`` (or
    /// after reconnecting gave up or went idle) it starts again.
    ///
    /// - Throws: ``TransportError``: the factory's (a non-transport error is wrapped with code
    ///   ``TransportError/Code/connectFailed``), ``TransportError/Code/connectTimeout``,
    ///   ``TransportError/Code/handshakeTimeout``, the handshake's (wrapped the same way), or
    ///   ``TransportError/Code/closed`` when ``close(ending:)`` came first.
    public func start() async throws(TransportError) {
        if tracer != nil, let context = ServiceContext.current {
            lock.withLock { $0.traceContext = context }
        }
        _ = try await awaitLink(cancelledMessage: "cancelled while connecting") { (state, continuation) throws(TransportError) in
            if state.observersFinished, !state.machine.isRunning { state.observersFinished = false }
            return state.machine.start(continuation)
        }
    }

    /// Stops reconnecting (cancelling and awaiting every task of the connection), closes the
    /// transport, fails every queued message and waiting caller with
    /// ``TransportError/Code/closed``, publishes `disconnected(nil)` and finishes the state
    /// streams.
    ///
    /// - Parameter ending: Runs on the open transport once nothing reconnects any more, before
    ///   it is closed: a protocol engine's own shutdown (which may close it with its own code).
    public func close(ending: (@Sendable (any MessageTransport) async -> Void)? = nil) async {
        let actions = lock.withLock { $0.machine.close() }
        await perform(actions, ending: ending, stopping: true)
        await abandonedCloses.drain()
    }

    /// Ends the connection without waiting, for an owner that goes away without calling
    /// ``close(ending:)``: every task of the connection is cancelled (each ends at its next suspension
    /// point), waiting callers fail with ``TransportError/Code/closed``, and the open
    /// transport's close handshake goes on in a task the connection owns (a later ``close(ending:)``
    /// waits for it), bounded by the transport's close timeout even when the connection is
    /// dropped meanwhile.
    public func abandon() {
        let actions = lock.withLock { $0.machine.close() }
        tasks.abandon()
        for (link, _) in performNow(actions) {
            abandonedCloses.spawn(link.generation) {
                await link.transport.close(code: .goingAway, reason: "the client went away")
            }
        }
    }

    /// Drops the open transport (if any) and opens a new one at once, with the current
    /// headers; work in flight on the old one fails as on any loss. A reconnect loop in
    /// progress is stopped first. Works after reconnecting gave up, too.
    ///
    /// - Parameters:
    ///   - keepTryingOnFailure: When the new connection cannot be opened: `false`
    ///     publishes `disconnected` with the error and stops (``start()`` or another reconnect
    ///     begins again); `true` goes on reconnecting with the policy's backoff.
    ///   - ending: Runs on the old transport before it is closed (as for ``close(ending:)``).
    /// - Throws: ``TransportError``: why the new connection could not be opened (as
    ///   ``start()``), or ``TransportError/Code/notConnected`` when the connection is not
    ///   started or is closed.
    public func reconnect(
        keepTryingOnFailure: Bool = false,
        ending: (@Sendable (any MessageTransport) async -> Void)? = nil
    ) async throws(TransportError) {
        logger.info("reconnecting on request")
        _ = try await awaitLink(cancelledMessage: "cancelled while reconnecting", ending: ending) { (state, continuation) throws(TransportError) in
            guard let (id, actions) = state.machine.reconnect(continuation, keepTrying: keepTryingOnFailure) else {
                throw TransportError(code: .notConnected, message: "the connection is not running")
            }
            return (.waiting(id), actions)
        }
    }

    /// Reports that the protocol on the transport of `generation` has failed although the
    /// transport is still open (a message could not be encoded, say): the transport is ended
    /// with `error` and the connection reconnects as after any loss. Does nothing for a
    /// transport that is no longer current.
    public func transportFailed(generation: UInt64, error: TransportError) {
        guard let link = lock.withLock({ $0.machine.openLink }), link.generation == generation else { return }
        tasks.spawn(.abort(generation)) { await link.link.transport.abort(error) }
    }

    // MARK: Sending and waiting

    /// Sends `message` on the ready transport, or holds it until the next one is ready (up to
    /// the ``ReconnectingConnectionConfiguration/offlineQueueLimit``).
    ///
    /// - Throws: ``TransportError``: `notConnected` when not started, closed, given up, or
    ///   without an offline queue; `offlineQueueFull` when the queue holds its limit; the
    ///   transport's error (`messageTooLarge`, say) when it refuses the message.
    public func send(_ message: TransportMessage) async throws(TransportError) {
        while true {
            let decision = try lock.withLock { state throws(TransportError) in try state.machine.send(message) }
            guard case .write(let link) = decision else {
                reportQueueDepth()
                return
            }
            do {
                try link.transport.enqueue(message)
                return
            } catch where error.code == .closed {
                // Lost just now: once the machine has heard of it, the message is held.
                if lock.withLock({ $0.machine.readyLink?.generation == link.generation }) { throw error }
            }
        }
    }

    /// How many times a caller has begun waiting in ``link()`` because the connection was not
    /// ready. Lets tests observe such a wait instead of guessing at its timing.
    @_spi(RpcImplementation)
    public var offlineWaitCount: UInt64 {
        lock.withLock { $0.offlineWaits }
    }

    /// The ready link, when there is one now (``link()`` without the wait).
    public var readyLink: Link? {
        lock.withLock { $0.machine.readyLink?.link }
    }

    /// Waits until ready (within the offline limit) and returns the ready transport.
    ///
    /// - Throws: ``TransportError``: as ``send(_:)``, `closed` when the connection is closed
    ///   while waiting, `cancelled` when the task is.
    public func link() async throws(TransportError) -> Link {
        // The common case, without a continuation: the link is ready.
        if let ready = readyLink { return ready }
        return try await awaitLink(cancelledMessage: "cancelled while waiting for the connection") { (state, continuation) throws(TransportError) in
            let decision = try state.machine.waitForLink(continuation)
            if case .waiting = decision { state.offlineWaits += 1 }
            return (decision, [])
        }
    }

    /// Waits until the connection is ready (within the offline limit).
    ///
    /// - Throws: ``TransportError`` as ``link()``.
    public func waitUntilConnected() async throws(TransportError) {
        _ = try await link()
    }

    /// Whether the connection is started and still trying (not idle, closed or given up).
    public var isRunning: Bool {
        lock.withLock { $0.machine.isRunning }
    }

    /// The ready transport, if connected.
    public var currentTransport: (any MessageTransport)? {
        lock.withLock { $0.machine.readyLink?.link.transport }
    }

    // MARK: Shell

    /// Registers the calling task as a waiter with `register` (under the lock), performs the
    /// actions it returns, and waits for the link (or returns it at once).
    private func awaitLink(
        cancelledMessage: String,
        ending: (@Sendable (any MessageTransport) async -> Void)? = nil,
        _ register: @escaping @Sendable (inout State, CheckedContinuation<Link, any Error>) throws(TransportError) -> (Machine.WaitDecision, [Action])
    ) async throws(TransportError) -> Link {
        let waiterID = Mutex<UInt64?>(nil)
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Link, any Error>) in
                    let outcome: Result<(Machine.WaitDecision, [Action]), TransportError> = lock.withLock { state in
                        if Task.isCancelled {
                            return .failure(TransportError(code: .cancelled, message: cancelledMessage))
                        }
                        do throws(TransportError) {
                            return .success(try register(&state, continuation))
                        } catch {
                            return .failure(error)
                        }
                    }
                    switch outcome {
                    case .failure(let error):
                        continuation.resume(throwing: error)
                    case .success((.ready(let link, _), let actions)):
                        continuation.resume(returning: link)
                        self.performSpawning(actions, ending: ending)
                    case .success((.waiting(let id), let actions)):
                        waiterID.withLock { $0 = id }
                        self.performSpawning(actions, ending: ending)
                    }
                }
            } onCancel: {
                guard let id = waiterID.withLock({ $0 }) else { return }
                let waiter = lock.withLock { $0.machine.cancelWaiter(id) }
                waiter?.resume(throwing: TransportError(code: .cancelled, message: cancelledMessage))
                reportQueueDepth()
            }
        } catch let error as TransportError {
            throw error
        } catch {
            throw Self.transportError(error)
        }
    }

    /// Feeds an input to the machine and performs its actions.
    private func feed(_ input: (inout Machine) -> [Action]) {
        let actions = lock.withLock { input(&$0.machine) }
        performSpawning(actions, ending: nil)
    }

    /// Performs the actions of a close: every task of the connection is stopped first, then the
    /// link is ended and closed here, and whatever a stopped task still reported is awaited.
    private func perform(
        _ actions: [Action], ending: (@Sendable (any MessageTransport) async -> Void)?, stopping: Bool
    ) async {
        if stopping { await tasks.cancelAll() }
        let closing = performNow(actions)
        reportQueueDepth()
        for (link, reason) in closing {
            if let ending { await ending(link.transport) }
            await Self.close(link, reason)
        }
        if stopping {
            // A task cancelled while it reported back may have opened one more link.
            await tasks.drain()
        }
    }

    /// Performs `actions`; links to close are closed in tasks the connection owns (so a close
    /// awaits them), never in the task that reported, which may be one being stopped.
    private func performSpawning(_ actions: [Action], ending: (@Sendable (any MessageTransport) async -> Void)?) {
        let closing = performNow(actions)
        reportQueueDepth()
        for (link, reason) in closing {
            tasks.spawn(.close(link.generation)) {
                if let ending { await ending(link.transport) }
                await Self.close(link, reason)
            }
        }
    }

    /// Closes `link` with the code and reason that say why.
    private static func close(_ link: Link, _ reason: Machine.CloseReason) async {
        switch reason {
        case .closed:
            await link.transport.close(code: .normal, reason: "closed by the client")
        case .reconnecting:
            await link.transport.close(code: .normal, reason: "reconnecting")
        case .failed(let error):
            switch error.code {
            case .handshakeTimeout, .handshakeFailed:
                await link.transport.close(code: .policyViolation, reason: error.message)
            default:
                await link.transport.close(code: .goingAway, reason: error.message)
            }
        }
    }

    /// Performs everything in `actions` that does not wait, in order, and returns the links
    /// that are to be closed (after their tasks were stopped), with why.
    private func performNow(_ actions: [Action]) -> [(Link, Machine.CloseReason)] {
        var closing: [(Link, Machine.CloseReason)] = []
        var published = false
        for action in actions {
            switch action {
            case .open(let attempt):
                tasks.spawn(.open(attempt)) { [weak self] in await self?.open(attempt: attempt) }
            case .cancelOpen(let attempt):
                tasks.cancel(.open(attempt))
            case .attach(let link, let generation):
                attach(link)
                tasks.spawn(.watch(generation)) { [weak self] in await self?.watch(link) }
            case .handshake(let link, let generation):
                guard let handshake = hooks.handshake else { continue }
                tasks.spawn(.handshake(generation)) { [weak self] in await self?.runHandshake(handshake, on: link) }
            case .cancelHandshake(let generation):
                tasks.cancel(.handshake(generation))
            case .startLiveness(let link, let generation):
                guard let keepalive = configuration.keepalive else { continue }
                let logger = self.logger
                tasks.spawn(.liveness(generation)) {
                    await KeepaliveScheduler.run(keepalive, on: link.transport) { error in
                        logger.warning("keepalive not answered; ending the transport")
                        await link.transport.abort(error)
                    }
                }
            case .startTimer(let timer, let delay):
                tasks.spawn(.timer(timer)) { [weak self] in
                    do {
                        try await Task.sleep(for: delay)
                    } catch {
                        return
                    }
                    self?.timerFired(timer)
                }
            case .cancelTimer(let timer):
                tasks.cancel(.timer(timer))
            case .flush(let messages, let link):
                for message in messages {
                    do {
                        try link.transport.enqueue(message)
                    } catch {
                        logger.warning("a queued message could not be sent", metadata: ["error": "\(error)"])
                    }
                }
            case .ready(let link, _):
                logger.info("connected", metadata: ["generation": "\(link.generation)"])
                hooks.ready?(link)
            case .closeLink(let link, let generation, let reason):
                tasks.cancel(.watch(generation))
                tasks.cancel(.liveness(generation))
                closing.append((link, reason))
            case .lost(let generation):
                logger.info("connection lost", metadata: ["generation": "\(generation)"])
                for handler in lock.withLock({ $0.lossHandlers }) { handler(generation) }
            case .publish(let state):
                lock.withLock { $0.publications.append(state) }
                published = true
            case .resume(let waiters, let link, _):
                for waiter in waiters { waiter.resume(returning: link) }
            case .fail(let waiters, let error):
                for waiter in waiters { waiter.resume(throwing: error) }
            case .finishObservers:
                if published { drainPublications() }
                published = false
                let observers = lock.withLock { state in
                    state.observersFinished = true
                    return state.observers.removeAll()
                }
                for observer in observers { observer.finish() }
            }
        }
        if published { drainPublications() }
        return closing
    }

    /// Tells the handlers and streams the decided states, in the order they were decided, one
    /// caller at a time.
    private func drainPublications() {
        while true {
            let next = lock.withLock { state -> (ConnectionState, [StateObservers<ConnectionState>.Continuation], [@Sendable (ConnectionState) -> Void])? in
                guard !state.publishing, !state.publications.isEmpty else { return nil }
                state.publishing = true
                return (state.publications.removeFirst(), state.observers.all, state.stateHandlers)
            }
            guard let (published, observers, handlers) = next else { return }
            metrics?.record(published)
            for handler in handlers { handler(published) }
            logger.debug("connection state", metadata: ["state": "\(published)"])
            for observer in observers { observer.yield(published) }
            lock.withLock { $0.publishing = false }
        }
    }

    /// Hands a new link to the handler.
    private func attach(_ link: Link) {
        switch handler {
        case .messages(let deliver):
            link.transport.start { event in
                if case .message(let message) = event { deliver(message) }
            }
        case .transports(let take):
            take(link.transport, link.generation)
        }
    }

    /// Opens a transport with the current headers, for `attempt`.
    private func open(attempt: UInt64) async {
        var (headers, traceContext) = lock.withLock { ($0.headers, $0.traceContext) }
        if let tracer, let context = traceContext ?? ServiceContext.current {
            TraceContextPropagation.inject(context, into: &headers, using: tracer)
        }
        do {
            let transport = try await factory(headers)
            feed { $0.linkOpened(attempt: attempt) { Link(transport: transport, generation: $0) } }
        } catch {
            // Cancelled: its timer or a close stopped it, and said so to the machine.
            if Task.isCancelled { return }
            logger.debug("connect failed", metadata: ["error": "\(error)"])
            let failure = Self.transportError(error)
            feed { $0.openFailed(attempt: attempt, error: failure, decide: self.decide) }
        }
    }

    /// Runs the ready handshake on `link`.
    private func runHandshake(_ handshake: @Sendable (Link) async throws -> Void, on link: Link) async {
        do {
            try await handshake(link)
            feed { $0.handshakeFinished(generation: link.generation) }
        } catch {
            if Task.isCancelled { return }
            let failure = Self.transportError(error, code: .handshakeFailed)
            feed { $0.linkFailed(generation: link.generation, error: failure, decide: self.decide) }
        }
    }

    /// Waits until `link`'s transport closes and reports the loss.
    private func watch(_ link: Link) async {
        for await transportState in link.transport.stateUpdates() {
            guard case .closed(let closure) = transportState else { continue }
            feed {
                $0.linkFailed(generation: link.generation, error: closure.asError, closure: closure, decide: self.decide)
            }
            return
        }
    }

    private func timerFired(_ timer: Machine.Timer) {
        feed { $0.timerFired(timer, decide: self.decide) }
    }

    /// Adds the change of the offline queue's depth (held messages and waiting callers) since
    /// the last report to the depth meter.
    private func reportQueueDepth() {
        guard let metrics else { return }
        let delta = lock.withLock { state -> Int in
            let depth = state.machine.offlineQueueDepth
            defer { state.reportedDepth = depth }
            return depth - state.reportedDepth
        }
        if delta > 0 {
            metrics.offlineQueueDepth.increment(by: Double(delta))
        } else if delta < 0 {
            metrics.offlineQueueDepth.decrement(by: Double(-delta))
        }
    }

    /// The protocol's retry decision, or the default.
    private func decide(_ error: TransportError, _ context: ConnectionFailureContext) -> RetryDecision {
        hooks.decideRetry?(error, context) ?? RetryDecision.default(for: context)
    }

    /// `error` as a ``TransportError``: itself, or wrapped with `code`.
    private static func transportError(_ error: any Error, code: TransportError.Code = .connectFailed) -> TransportError {
        if let error = error as? TransportError { return error }
        if error is CancellationError {
            return TransportError(code: .cancelled, message: "cancelled", cause: error)
        }
        return TransportError(code: code, message: "\(error)", cause: error)
    }
}
