import Logging
import Synchronization

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
/// Lifecycle: ``start()`` runs one supervising task, which ``reconnect(keepTryingOnFailure:)``
/// replaces and ``close()`` cancels and awaits; use
/// ``withReconnectingConnection(configuration:factory:handler:isolation:_:)`` so that nothing
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

    private enum Phase {
        case idle, running, stopped
    }

    /// Where a supervising task begins.
    private enum Start {
        /// Open the first connection; its failure is final.
        case fresh
        /// Watch a connection that is already attached.
        case watching(Link)
        /// Reconnect, starting with `attempt`, after `error`.
        case retrying(after: any Error, attempt: Int)
    }

    private struct State {
        var phase: Phase = .idle
        var gaveUp = false
        var connectionState: ConnectionState = .connecting
        var link: Link?
        var generation: UInt64 = 0
        var headers: [String: String]
        var outbox: [TransportMessage] = []
        var waiters: [UInt64: CheckedContinuation<Link, any Error>] = [:]
        var nextID: UInt64 = 0
        var observers = StateObservers<ConnectionState>()
        /// Set by ``close()`` once the observers are finished; a later ``start()`` clears it.
        var observersFinished = false
        var lossHandlers: [@Sendable (UInt64) -> Void] = []
        var stateHandlers: [@Sendable (ConnectionState) -> Void] = []
        var supervisor: Task<Void, Never>?
        var starting: CheckedContinuation<Void, any Error>?
        /// An explicit reconnect is in progress.
        var reconnecting = false
        /// Wakes the watch of the current link when its owner reports it failed.
        var failureSignal: (generation: UInt64, signal: AsyncStream<TransportError>.Continuation)?
    }

    /// The settings.
    public let configuration: ReconnectingConnectionConfiguration
    private let factory: TransportFactory
    private let handler: Handler
    private let lock: Mutex<State>
    private var logger: Logger { configuration.logger }

    /// Creates a connection; nothing is opened until ``start()``.
    public init(
        configuration: ReconnectingConnectionConfiguration = ReconnectingConnectionConfiguration(),
        factory: @escaping TransportFactory,
        handler: Handler
    ) {
        self.configuration = configuration
        self.factory = factory
        self.handler = handler
        self.lock = Mutex(State(headers: configuration.headers))
    }

    /// Starts a connection, runs `body` with it, and closes it when `body` returns or throws.
    ///
    /// - Throws: The ``TransportError`` of ``start()`` when the first connection cannot be
    ///   opened, or what `body` throws.
    public static func withReconnectingConnection<T>(
        configuration: ReconnectingConnectionConfiguration = ReconnectingConnectionConfiguration(),
        factory: @escaping TransportFactory,
        handler: Handler,
        isolation: isolated (any Actor)? = #isolation,
        _ body: (ReconnectingConnection) async throws -> T
    ) async throws -> T {
        let connection = ReconnectingConnection(configuration: configuration, factory: factory, handler: handler)
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
        lock.withLock { $0.connectionState }
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
            if state.observersFinished { return (state.connectionState, true) }
            state.observers.add(continuation) { [weak self] id in
                _ = self?.lock.withLock { $0.observers.remove(id) }
            }
            return (state.connectionState, false)
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
    /// reconnect or by ``close()``).
    public func onLoss(_ handler: @escaping @Sendable (UInt64) -> Void) {
        lock.withLock { $0.lossHandlers.append(handler) }
    }

    private func publish(_ newState: ConnectionState) {
        let published = lock.withLock { state -> ([StateObservers<ConnectionState>.Continuation], [@Sendable (ConnectionState) -> Void])? in
            // Once closed, only `disconnected` is published: an explicit reconnect that was
            // under way when the connection closed does not announce itself afterwards.
            if state.phase == .stopped, !newState.isDisconnected { return nil }
            // A connection starts out `connecting`: its first attempt changes nothing.
            if case .connecting = newState, case .connecting = state.connectionState { return nil }
            state.connectionState = newState
            return (state.observers.all, state.stateHandlers)
        }
        guard let (observers, handlers) = published else { return }
        for handler in handlers { handler(newState) }
        logger.debug("connection state", metadata: ["state": "\(newState)"])
        for observer in observers { observer.yield(newState) }
    }

    private func lost(_ link: Link) {
        for handler in lock.withLock({ $0.lossHandlers }) { handler(link.generation) }
    }

    // MARK: Lifecycle

    /// Opens the first connection and starts keeping it alive; returns once it is open.
    ///
    /// Calling it while running waits for the connection in progress (within the offline
    /// limit); after ``close()`` (or after reconnecting gave up) it starts again.
    ///
    /// - Throws: ``TransportError``: the factory's (a non-transport error is wrapped with code
    ///   ``TransportError/Code/connectFailed``), ``TransportError/Code/connectTimeout``, or
    ///   ``TransportError/Code/closed`` when ``close()`` came first.
    public func start() async throws(TransportError) {
        let began = lock.withLock { state -> (began: Bool, previous: Task<Void, Never>?) in
            if state.phase == .running && !state.gaveUp { return (false, nil) }
            state.phase = .running
            state.gaveUp = false
            state.observersFinished = false
            defer { state.supervisor = nil }
            return (true, state.supervisor)
        }
        guard began.began else {
            // Already running: wait for the connection in progress, if any.
            if lock.withLock({ $0.link == nil }) { _ = try await link() }
            return
        }
        // A supervisor that gave up has returned, or is returning.
        await began.previous?.value
        do {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let running = lock.withLock { state -> Bool in
                    guard state.phase == .running else { return false }
                    state.starting = continuation
                    state.supervisor = Task { [self] in await supervise(.fresh) }
                    return true
                }
                if !running {
                    continuation.resume(throwing: TransportError(code: .closed, message: "the connection was closed"))
                }
            }
        } catch {
            throw Self.transportError(error)
        }
    }

    /// Stops reconnecting (cancelling and awaiting the supervising task), closes the
    /// transport, fails every queued message and waiting caller with
    /// ``TransportError/Code/closed``, publishes `disconnected(nil)` and finishes the state
    /// streams.
    ///
    /// - Parameter ending: Runs on the open transport once nothing reconnects any more, before
    ///   it is closed: a protocol engine's own shutdown (which may close it with its own code).
    public func close(ending: (@Sendable (any MessageTransport) async -> Void)? = nil) async {
        let taken = lock.withLock { state in
            state.phase = .stopped
            let taken = (state.supervisor, state.link, state.waiters, state.starting)
            state.supervisor = nil
            state.link = nil
            state.waiters = [:]
            state.starting = nil
            state.outbox = []
            return taken
        }
        taken.0?.cancel()
        await taken.0?.value
        // A supervisor cancelled while attaching may have stored one more link.
        let stray = lock.withLock { state -> Link? in
            defer { state.link = nil }
            return state.link
        }
        for link in [taken.1, stray].compactMap({ $0 }) {
            await ending?(link.transport)
            await link.transport.close(code: .normal, reason: "closed by the client")
            lost(link)
        }
        let closed = TransportError(code: .closed, message: "the connection was closed")
        for waiter in taken.2.values { waiter.resume(throwing: closed) }
        taken.3?.resume(throwing: closed)
        publish(.disconnected(nil))
        let observers = lock.withLock { state in
            state.observersFinished = true
            return state.observers.removeAll()
        }
        for observer in observers { observer.finish() }
    }

    /// Ends the connection without waiting, for an owner that goes away without calling
    /// ``close()``: the supervising task is cancelled (it ends at its next suspension point),
    /// waiting callers fail with ``TransportError/Code/closed``, and the open transport's
    /// close handshake finishes in the background (bounded by its close timeout).
    public func abandon() {
        let taken = lock.withLock { state -> (Task<Void, Never>?, Link?, [CheckedContinuation<Link, any Error>], CheckedContinuation<Void, any Error>?)? in
            guard state.phase != .stopped else { return nil }
            state.phase = .stopped
            defer {
                state.supervisor = nil
                state.link = nil
                state.waiters = [:]
                state.starting = nil
                state.outbox = []
            }
            return (state.supervisor, state.link, Array(state.waiters.values), state.starting)
        }
        guard let (supervisor, link, waiters, starting) = taken else { return }
        supervisor?.cancel()
        let closed = TransportError(code: .closed, message: "the connection's owner went away")
        for waiter in waiters { waiter.resume(throwing: closed) }
        starting?.resume(throwing: closed)
        if let transport = link?.transport {
            Task { await transport.close(code: .goingAway, reason: "the client went away") }
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
    ///   - ending: Runs on the old transport once the reconnect loop is stopped, before it is
    ///     closed (as for ``close(ending:)``).
    /// - Throws: ``TransportError``: why the new connection could not be opened (as
    ///   ``start()``), or ``TransportError/Code/notConnected`` when the connection is not
    ///   started or is closed.
    public func reconnect(
        keepTryingOnFailure: Bool = false,
        ending: (@Sendable (any MessageTransport) async -> Void)? = nil
    ) async throws(TransportError) {
        let taken = lock.withLock { state -> (supervisor: Task<Void, Never>?, link: Link?)? in
            guard state.phase == .running, !state.reconnecting else { return nil }
            state.reconnecting = true
            state.gaveUp = false
            defer {
                state.supervisor = nil
                state.link = nil
            }
            return (state.supervisor, state.link)
        }
        guard let taken else {
            if lock.withLock({ $0.reconnecting }) {
                // Another reconnect is in progress: wait for its connection.
                _ = try await link()
                return
            }
            throw TransportError(code: .notConnected, message: "the connection is not running")
        }
        logger.info("reconnecting on request")
        taken.supervisor?.cancel()
        await taken.supervisor?.value
        let stray = lock.withLock { state -> Link? in
            defer { state.link = nil }
            return state.link
        }
        for link in [taken.link, stray].compactMap({ $0 }) {
            await ending?(link.transport)
            await link.transport.close(code: .normal, reason: "reconnecting")
            lost(link)
        }
        publish(.reconnecting(attempt: 1))
        let transport: any MessageTransport
        do {
            transport = try await connect()
        } catch {
            if keepTryingOnFailure && configuration.reconnect.allows(attempt: 2) {
                resumeSupervision(.retrying(after: error, attempt: 2))
            } else {
                lock.withLock { $0.reconnecting = false }
                giveUp(error)
            }
            throw error
        }
        guard let link = attach(transport) else {
            await transport.close()
            lock.withLock { $0.reconnecting = false }
            throw TransportError(code: .notConnected, message: "the connection was closed while reconnecting")
        }
        guard resumeSupervision(.watching(link)) else {
            throw TransportError(code: .notConnected, message: "the connection was closed while reconnecting")
        }
    }

    /// Ends an explicit reconnect by starting a supervising task at `start`; `false` (and no
    /// task) when the connection was closed meanwhile.
    @discardableResult
    private func resumeSupervision(_ start: Start) -> Bool {
        lock.withLock { state -> Bool in
            state.reconnecting = false
            guard state.phase == .running else { return false }
            state.supervisor = Task { [self] in await supervise(start) }
            return true
        }
    }

    /// Reports that the protocol on the transport of `generation` has failed although the
    /// transport is still open (a message could not be encoded, say): the supervising task
    /// ends it with `error` and reconnects as after any loss. Does nothing for a transport
    /// that is no longer current.
    public func transportFailed(generation: UInt64, error: TransportError) {
        let signal = lock.withLock { state in
            state.failureSignal?.generation == generation ? state.failureSignal?.signal : nil
        }
        signal?.yield(error)
    }

    // MARK: Supervision

    /// Connects, watches, reconnects; runs until cancelled, given up, or out of attempts.
    private func supervise(_ start: Start) async {
        let policy = configuration.reconnect
        var attempt = 0
        var everConnected = true
        var lastError: (any Error)?
        var watching: Link?
        switch start {
        case .fresh:
            everConnected = false
            publish(.connecting)
        case .watching(let link):
            watching = link
        case .retrying(let error, let next):
            lastError = error
            attempt = next
        }
        while !Task.isCancelled {
            if let link = watching {
                watching = nil
                let reason = await watch(link)
                if Task.isCancelled { return }
                lastError = detach(link, reason: reason)
                attempt = 1
                continue
            }
            if attempt > 0 {
                guard policy.allows(attempt: attempt) else {
                    giveUp(lastError)
                    return
                }
                publish(.reconnecting(attempt: attempt))
                do {
                    try await Task.sleep(for: policy.backoff.delay(forAttempt: attempt))
                } catch {
                    return
                }
            }
            let transport: any MessageTransport
            do {
                transport = try await connect()
            } catch {
                if Task.isCancelled { return }
                logger.debug("connect failed", metadata: ["error": "\(error)"])
                lastError = error
                if !everConnected {
                    giveUp(error)
                    return
                }
                attempt += 1
                continue
            }
            guard let link = attach(transport) else {
                await transport.close()
                return
            }
            everConnected = true
            watching = link
        }
    }

    /// Opens a transport with the current headers, within the connect timeout.
    private func connect() async throws(TransportError) -> any MessageTransport {
        let headers = lock.withLock { $0.headers }
        let factory = self.factory
        let timeout = configuration.connectTimeout
        do {
            let opened = try await withThrowingTaskGroup(of: (any MessageTransport)?.self) { group in
                group.addTask { try await factory(headers) }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    return nil
                }
                let first: (any MessageTransport)?
                do {
                    first = try await group.next() ?? nil
                } catch {
                    group.cancelAll()
                    await Self.closeLate(&group)
                    throw error
                }
                group.cancelAll()
                await Self.closeLate(&group)
                return first
            }
            guard let opened else {
                throw TransportError(code: .connectTimeout, message: "the connection was not opened within \(timeout)")
            }
            return opened
        } catch {
            if Task.isCancelled {
                throw TransportError(code: .cancelled, message: "connecting was cancelled", cause: error)
            }
            throw Self.transportError(error)
        }
    }

    /// Awaits the rest of a connect race, closing a transport the factory opened too late.
    private static func closeLate(_ group: inout ThrowingTaskGroup<(any MessageTransport)?, any Error>) async {
        while let result = await group.nextResult() {
            if case .success(let transport?) = result { await transport.close() }
        }
    }

    /// Makes `transport` current, hands it to the handler, flushes the offline queue and
    /// resumes waiting callers; `nil` when the connection was closed meanwhile.
    private func attach(_ transport: any MessageTransport) -> Link? {
        let taken = lock.withLock { state -> (Link, [TransportMessage], [CheckedContinuation<Link, any Error>], CheckedContinuation<Void, any Error>?)? in
            guard state.phase == .running, !Task.isCancelled else { return nil }
            state.generation += 1
            let link = Link(transport: transport, generation: state.generation)
            state.link = link
            defer {
                state.outbox = []
                state.waiters = [:]
                state.starting = nil
            }
            return (link, state.outbox, Array(state.waiters.values), state.starting)
        }
        guard let (link, outbox, waiters, starting) = taken else { return nil }
        switch handler {
        case .messages(let deliver):
            transport.start { event in
                if case .message(let message) = event { deliver(message) }
            }
        case .transports(let take):
            take(transport, link.generation)
        }
        for message in outbox {
            do {
                try transport.enqueue(message)
            } catch {
                logger.warning("a queued message could not be sent", metadata: ["error": "\(error)"])
            }
        }
        logger.info("connected", metadata: ["generation": "\(link.generation)"])
        publish(.connected)
        starting?.resume()
        for waiter in waiters { waiter.resume(returning: link) }
        return link
    }

    /// Returns when `link`'s transport has closed, running the keepalive meanwhile; the
    /// keepalive's error when it ended the transport.
    private func watch(_ link: Link) async -> TransportError? {
        let (failures, signal) = AsyncStream<TransportError>.makeStream()
        lock.withLock { $0.failureSignal = (link.generation, signal) }
        defer {
            lock.withLock { state in
                if state.failureSignal?.generation == link.generation { state.failureSignal = nil }
            }
            signal.finish()
        }
        let transport = link.transport
        return await withTaskGroup(of: TransportError?.self) { group in
            if let keepalive = configuration.keepalive {
                let logger = self.logger
                group.addTask {
                    await KeepaliveScheduler.run(keepalive, on: transport) { error in
                        logger.warning("keepalive not answered; ending the transport")
                        await transport.abort(error)
                    }
                }
            }
            group.addTask {
                // The owner reported the transport failed: end it.
                for await error in failures {
                    await transport.abort(error)
                    return error
                }
                return nil
            }
            for await transportState in transport.stateUpdates() where transportState.isClosed {
                break
            }
            group.cancelAll()
            signal.finish()
            var failure: TransportError?
            for await result in group where result != nil {
                failure = result
            }
            return failure
        }
    }

    /// Forgets a lost transport; returns why it closed.
    private func detach(_ link: Link, reason keepaliveFailure: TransportError?) -> (any Error)? {
        lock.withLock { state in
            if state.link?.generation == link.generation { state.link = nil }
        }
        lost(link)
        var reason: (any Error)? = keepaliveFailure
        if reason == nil, case .closed(let closure) = link.transport.state {
            reason = closure.error ?? TransportError(code: .closed, message: closure.description, closeCode: closure.code)
        }
        logger.info("connection lost", metadata: ["generation": "\(link.generation)", "reason": "\(String(describing: reason))"])
        return reason
    }

    private func giveUp(_ error: (any Error)?) {
        let failure = TransportError(code: .notConnected, message: error.map { "\($0)" } ?? "could not connect", cause: error)
        let taken = lock.withLock { state -> ([CheckedContinuation<Link, any Error>], CheckedContinuation<Void, any Error>?)? in
            guard state.phase == .running else { return nil }
            state.gaveUp = true
            defer {
                state.waiters = [:]
                state.starting = nil
                state.outbox = []
            }
            return (Array(state.waiters.values), state.starting)
        }
        guard let (waiters, starting) = taken else { return }
        publish(.disconnected(error ?? failure))
        starting?.resume(throwing: error.map(Self.transportError) ?? failure)
        for waiter in waiters { waiter.resume(throwing: failure) }
    }

    /// `error` as a ``TransportError``: itself, or wrapped with code `connectFailed`.
    private static func transportError(_ error: any Error) -> TransportError {
        if let error = error as? TransportError { return error }
        if error is CancellationError {
            return TransportError(code: .cancelled, message: "cancelled", cause: error)
        }
        return TransportError(code: .connectFailed, message: "\(error)", cause: error)
    }

    // MARK: Sending and waiting

    /// Sends `message` on the open transport, or holds it until the next connection (up to
    /// the ``ReconnectingConnectionConfiguration/offlineQueueLimit``).
    ///
    /// - Throws: ``TransportError``: `notConnected` when not started, closed, given up, or
    ///   without an offline queue; `offlineQueueFull` when the queue holds its limit; the
    ///   transport's error (`messageTooLarge`, say) when it refuses the message.
    public func send(_ message: TransportMessage) async throws(TransportError) {
        if let link = lock.withLock({ $0.link }) {
            do {
                try link.transport.enqueue(message)
                return
            } catch {
                if error.code != .closed { throw error }
            }
        }
        try lock.withLock { state throws(TransportError) in
            if let link = state.link, link.transport.state.isOpen {
                try link.transport.enqueue(message)
                return
            }
            try admitOffline(&state, queued: state.outbox.count)
            state.outbox.append(message)
        }
    }

    private func admitOffline(_ state: inout State, queued: Int) throws(TransportError) {
        guard state.phase == .running, !state.gaveUp else {
            throw TransportError(code: .notConnected, message: "the connection is not running")
        }
        guard let limit = configuration.offlineQueueLimit else {
            throw TransportError(code: .notConnected, message: "not connected, and the offline policy holds nothing (no offline queue)")
        }
        guard queued < limit else {
            throw TransportError(code: .offlineQueueFull, message: "the offline queue is full (limit \(limit))")
        }
    }

    /// How many times a caller has begun waiting in ``link()`` because the connection was not
    /// open. Lets tests observe such a wait instead of guessing at its timing.
    @_spi(RpcImplementation)
    public var offlineWaitCount: UInt64 {
        lock.withLock { $0.nextID }
    }

    /// Waits until connected (within the offline limit) and returns the open transport.
    ///
    /// - Throws: ``TransportError``: as ``send(_:)``, `closed` when the connection is closed
    ///   while waiting, `cancelled` when the task is.
    public func link() async throws(TransportError) -> Link {
        enum Decision {
            case ready(Link)
            case wait(UInt64)
        }
        let decision = try lock.withLock { state throws(TransportError) -> Decision in
            if let link = state.link { return .ready(link) }
            try admitOffline(&state, queued: state.waiters.count)
            let id = state.nextID
            state.nextID += 1
            return .wait(id)
        }
        switch decision {
        case .ready(let link):
            return link
        case .wait(let id):
            do {
                return try await withTaskCancellationHandler {
                    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Link, any Error>) in
                        let immediate = lock.withLock { state -> Result<Link, any Error>? in
                            if Task.isCancelled { return .failure(CancellationError()) }
                            if let link = state.link { return .success(link) }
                            guard state.phase == .running, !state.gaveUp else {
                                return .failure(TransportError(code: .notConnected, message: "the connection is not running"))
                            }
                            state.waiters[id] = continuation
                            return nil
                        }
                        if let immediate { continuation.resume(with: immediate) }
                    }
                } onCancel: {
                    let waiter = lock.withLock { $0.waiters.removeValue(forKey: id) }
                    waiter?.resume(throwing: CancellationError())
                }
            } catch let error as TransportError {
                throw error
            } catch {
                throw TransportError(code: .cancelled, message: "cancelled while waiting for the connection")
            }
        }
    }

    /// Waits until the connection is open (within the offline limit).
    ///
    /// - Throws: ``TransportError`` as ``link()``.
    public func waitUntilConnected() async throws(TransportError) {
        _ = try await link()
    }

    /// Whether the connection is started and still trying (not idle, closed or given up).
    public var isRunning: Bool {
        lock.withLock { $0.phase == .running && !$0.gaveUp }
    }

    /// The open transport, if connected.
    public var currentTransport: (any MessageTransport)? {
        lock.withLock { $0.link?.transport }
    }
}

extension ConnectionState {
    /// Whether this is `disconnected`.
    fileprivate var isDisconnected: Bool {
        if case .disconnected = self { return true }
        return false
    }
}
