import Logging
@_spi(RpcImplementation) public import RpcTransport
import Synchronization

/// One logical connection kept alive over a series of transports: it opens a transport with
/// the factory, watches it, and when it drops reconnects with the configured backoff.
///
/// Protocol-agnostic: the ``Handler`` decides what happens on each new transport. With
/// ``Handler/messages(_:)`` the connection reads the transport and passes every message on
/// (and ``send(_:)`` writes, holding messages while offline per the ``OfflinePolicy``); with
/// ``Handler/transports(_:)`` a protocol engine takes each transport over (the RpcDo client
/// starts a Cap'n Web session on it).
///
/// ```swift
/// try await ManagedConnection.withConnection(
///     configuration: config,
///     factory: { headers in try await openWebSocket(headers: headers) },
///     handler: .messages { message in print(message.text ?? "") }
/// ) { connection in
///     try await connection.send(.text("hello"))
/// }
/// ```
///
/// States are published as ``stateUpdates()`` and as the observable ``status``: `idle`, then
/// `connecting`, `connected`, `reconnecting(attempt:)` after a loss, and `disconnected` when
/// closed (`nil`) or given up (the last error). Headers changed with ``updateHeader(_:value:)``
/// are passed to the factory on the next (re)connect.
///
/// Lifecycle: ``start()`` runs one supervising task that ``close()`` cancels and awaits; use
/// ``withConnection(configuration:factory:handler:isolation:_:)`` so nothing outlives the scope.
public final class ManagedConnection: Sendable {
    /// Opens a transport to the peer, with the headers current at that moment.
    public typealias TransportFactory = @Sendable (_ headers: [String: String]) async throws -> any MessageTransport

    /// What the connection does with each new transport.
    public enum Handler: Sendable {
        /// Read the transport and pass every inbound message to the closure.
        case messages(@Sendable (TransportMessage) -> Void)
        /// Hand the transport (with its generation, counting from 1) to a protocol engine,
        /// which starts reading it. The connection still watches it for loss.
        case transports(@Sendable (any MessageTransport, UInt64) -> Void)
    }

    /// An open transport and its generation.
    struct Link: Sendable {
        let transport: any MessageTransport
        let generation: UInt64
    }

    private enum Phase {
        case idle, running, stopped
    }

    private struct State {
        var phase: Phase = .idle
        var gaveUp = false
        var connectionState: ConnectionState = .idle
        var link: Link?
        var generation: UInt64 = 0
        var headers: [String: String]
        var outbox: [TransportMessage] = []
        var waiters: [UInt64: CheckedContinuation<Link, any Error>] = [:]
        var nextID: UInt64 = 0
        var observers = StateObservers<ConnectionState>()
        var lossHandlers: [@Sendable (UInt64) -> Void] = []
        var supervisor: Task<Void, Never>?
        var starting: CheckedContinuation<Void, any Error>?
    }

    /// The settings.
    public let configuration: ManagedConnectionConfiguration
    /// The observable snapshot of ``state``.
    public let status = ConnectionStatus()
    private let factory: TransportFactory
    private let handler: Handler
    private let lock: Mutex<State>
    private var logger: Logger { configuration.logger }

    /// Creates a connection; nothing is opened until ``start()``.
    public init(configuration: ManagedConnectionConfiguration = ManagedConnectionConfiguration(), factory: @escaping TransportFactory, handler: Handler) {
        self.configuration = configuration
        self.factory = factory
        self.handler = handler
        self.lock = Mutex(State(headers: configuration.headers))
    }

    /// Starts a connection, runs `body` with it, and closes it when `body` returns or throws.
    ///
    /// - Throws: ``ManagedConnectionError`` when the first connection cannot be opened, or
    ///   what `body` throws.
    public static func withConnection<T>(
        configuration: ManagedConnectionConfiguration = ManagedConnectionConfiguration(),
        factory: @escaping TransportFactory,
        handler: Handler,
        isolation: isolated (any Actor)? = #isolation,
        _ body: (ManagedConnection) async throws -> T
    ) async throws -> T {
        let connection = ManagedConnection(configuration: configuration, factory: factory, handler: handler)
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
    /// connection is closed.
    public func stateUpdates() -> AsyncStream<ConnectionState> {
        let (stream, continuation) = AsyncStream<ConnectionState>.makeStream()
        let current = lock.withLock { state in
            state.observers.add(continuation) { [weak self] id in
                _ = self?.lock.withLock { $0.observers.remove(id) }
            }
            return state.connectionState
        }
        continuation.yield(current)
        return stream
    }

    /// Runs `handler` with the generation of each transport that is lost.
    func onLoss(_ handler: @escaping @Sendable (UInt64) -> Void) {
        lock.withLock { $0.lossHandlers.append(handler) }
    }

    private func publish(_ newState: ConnectionState) {
        let observers = lock.withLock { state in
            state.connectionState = newState
            return state.observers.all
        }
        status.update(newState)
        logger.debug("connection state", metadata: ["state": "\(newState)"])
        for observer in observers { observer.yield(newState) }
    }

    // MARK: Lifecycle

    /// Opens the first connection and starts keeping it alive; returns once it is open.
    ///
    /// Calling it while running waits for the connection in progress (per the
    /// ``OfflinePolicy``); after ``close()`` (or after reconnecting gave up) it starts again.
    ///
    /// - Throws: ``ManagedConnectionError`` with ``ManagedConnectionError/Code/notConnected``
    ///   when the first transport cannot be opened (the factory's error is in the message).
    public func start() async throws(ManagedConnectionError) {
        let began = lock.withLock { state -> Bool in
            if state.phase == .running && !state.gaveUp { return false }
            state.phase = .running
            state.gaveUp = false
            return true
        }
        guard began else {
            // Already running: wait for the connection in progress, if any.
            if lock.withLock({ $0.link == nil }) { _ = try await link() }
            return
        }
        do {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                lock.withLock { state in
                    state.starting = continuation
                    state.supervisor = Task { [self] in await supervise() }
                }
            }
        } catch let error as ManagedConnectionError {
            throw error
        } catch {
            throw ManagedConnectionError(.notConnected, "\(error)")
        }
    }

    /// Stops reconnecting, closes the transport, fails every queued message and waiting call
    /// with ``ManagedConnectionError/Code/closed`` and publishes `disconnected(nil)`.
    public func close() async {
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
        if let link = taken.1 {
            await link.transport.close(code: .normal, reason: "closed by the client")
            for handler in lock.withLock({ $0.lossHandlers }) { handler(link.generation) }
        }
        let closed = ManagedConnectionError(.closed, "the connection was closed")
        for waiter in taken.2.values { waiter.resume(throwing: closed) }
        taken.3?.resume(throwing: closed)
        publish(.disconnected(nil))
        for observer in lock.withLock({ $0.observers.removeAll() }) { observer.finish() }
    }

    /// Ends the connection without waiting, for an owner that goes away without calling
    /// ``close()``: the supervising task is cancelled, waiting calls fail with `closed`, and the
    /// open transport's close handshake finishes in the background (bounded by its close
    /// timeout).
    func abandon() {
        let taken = lock.withLock { state -> (Task<Void, Never>?, Link?, [CheckedContinuation<Link, any Error>])? in
            guard state.phase != .stopped else { return nil }
            state.phase = .stopped
            defer {
                state.supervisor = nil
                state.link = nil
                state.waiters = [:]
                state.outbox = []
            }
            return (state.supervisor, state.link, Array(state.waiters.values))
        }
        guard let (supervisor, link, waiters) = taken else { return }
        supervisor?.cancel()
        let closed = ManagedConnectionError(.closed, "the connection's owner went away")
        for waiter in waiters { waiter.resume(throwing: closed) }
        if let transport = link?.transport {
            Task { await transport.close(code: .goingAway, reason: "the client went away") }
        }
    }

    /// Closes the open transport so that the connection reopens (after the first backoff
    /// delay) with the current headers; work in flight on it fails as on any loss. Does
    /// nothing when not connected.
    public func reconnect() async {
        guard let link = lock.withLock({ $0.link }) else { return }
        logger.info("reconnecting on request")
        await link.transport.close(code: .normal, reason: "reconnecting")
    }

    /// Connects, watches, reconnects; runs until cancelled or out of attempts.
    private func supervise() async {
        publish(.connecting)
        let policy = configuration.reconnect
        var attempt = 0
        var everConnected = false
        var lastError: (any Error)?
        while !Task.isCancelled {
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
            let headers = lock.withLock { $0.headers }
            let transport: any MessageTransport
            do {
                transport = try await factory(headers)
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
            await watch(link)
            if Task.isCancelled { return }
            lastError = detach(link)
            attempt = 1
        }
    }

    /// Makes `transport` current, hands it to the handler, flushes the offline queue and
    /// resumes waiting calls; `nil` when the connection was closed meanwhile.
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

    /// Returns when `link`'s transport has closed, running the heartbeat meanwhile.
    private func watch(_ link: Link) async {
        await withTaskGroup(of: Void.self) { group in
            if let heartbeat = configuration.heartbeat {
                group.addTask { [self] in await beat(heartbeat, on: link.transport) }
            }
            for await transportState in link.transport.stateUpdates() where transportState.isClosed {
                break
            }
            group.cancelAll()
        }
    }

    private func beat(_ heartbeat: Heartbeat, on transport: any MessageTransport) async {
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: heartbeat.interval)
            } catch {
                return
            }
            let answered = await withTaskGroup(of: Bool.self) { group in
                group.addTask { (try? await heartbeat.probe(transport)) != nil }
                group.addTask {
                    do {
                        try await Task.sleep(for: heartbeat.timeout)
                    } catch {
                        return true
                    }
                    return false
                }
                let first = await group.next() ?? false
                group.cancelAll()
                return first
            }
            if Task.isCancelled { return }
            if !answered {
                logger.warning("heartbeat not answered; closing the transport")
                await transport.close(code: .goingAway, reason: "heartbeat not answered")
                return
            }
        }
    }

    /// Forgets a lost transport; returns why it closed.
    private func detach(_ link: Link) -> (any Error)? {
        let handlers = lock.withLock { state -> [@Sendable (UInt64) -> Void] in
            if state.link?.generation == link.generation { state.link = nil }
            return state.lossHandlers
        }
        for handler in handlers { handler(link.generation) }
        var reason: (any Error)?
        if case .closed(let closure) = link.transport.state {
            reason = closure.error ?? ManagedConnectionError(.connectionLost, closure.description)
        }
        logger.info("connection lost", metadata: ["generation": "\(link.generation)", "reason": "\(String(describing: reason))"])
        return reason
    }

    private func giveUp(_ error: (any Error)?) {
        let failure = ManagedConnectionError(.notConnected, error.map { "\($0)" } ?? "could not connect")
        let taken = lock.withLock { state in
            state.gaveUp = true
            defer {
                state.waiters = [:]
                state.starting = nil
                state.outbox = []
            }
            return (Array(state.waiters.values), state.starting)
        }
        publish(.disconnected(error ?? failure))
        taken.1?.resume(throwing: failure)
        for waiter in taken.0 { waiter.resume(throwing: failure) }
    }

    // MARK: Sending and waiting

    /// Sends `message` on the open transport, or holds it until the next connection per the
    /// ``OfflinePolicy``.
    ///
    /// - Throws: ``ManagedConnectionError``: `notConnected` when not started, given up, or the
    ///   policy is ``OfflinePolicy/fail``; `offlineQueueFull` when the queue holds its limit.
    public func send(_ message: TransportMessage) async throws(ManagedConnectionError) {
        if let link = lock.withLock({ $0.link }) {
            do {
                try link.transport.enqueue(message)
                return
            } catch {
                if error.code != .closed {
                    throw ManagedConnectionError(.invalidRequest, error.message)
                }
            }
        }
        try lock.withLock { state throws(ManagedConnectionError) in
            if let link = state.link, link.transport.state.isOpen {
                do {
                    try link.transport.enqueue(message)
                    return
                } catch {
                    throw ManagedConnectionError(.connectionLost, "\(error)")
                }
            }
            try admitOffline(&state, queued: state.outbox.count)
            state.outbox.append(message)
        }
    }

    private func admitOffline(_ state: inout State, queued: Int) throws(ManagedConnectionError) {
        guard state.phase == .running, !state.gaveUp else {
            throw ManagedConnectionError(.notConnected, "the connection is not running")
        }
        switch configuration.offlinePolicy {
        case .fail:
            throw ManagedConnectionError(.notConnected, "not connected (offline policy: fail)")
        case .queue(let limit):
            guard queued < limit else {
                throw ManagedConnectionError(.offlineQueueFull, "the offline queue is full (limit \(limit))")
            }
        }
    }

    /// Waits until connected (per the offline policy) and returns the open transport.
    func link() async throws(ManagedConnectionError) -> Link {
        enum Decision {
            case ready(Link)
            case wait(UInt64)
        }
        let decision = try lock.withLock { state throws(ManagedConnectionError) -> Decision in
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
                                return .failure(ManagedConnectionError(.notConnected, "the connection is not running"))
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
            } catch let error as ManagedConnectionError {
                throw error
            } catch {
                throw ManagedConnectionError(.cancelled, "cancelled while waiting for the connection")
            }
        }
    }

    /// Waits until the connection is open (per the ``OfflinePolicy``).
    ///
    /// - Throws: ``ManagedConnectionError`` as ``send(_:)``, or `cancelled`.
    public func waitUntilConnected() async throws(ManagedConnectionError) {
        _ = try await link()
    }

    /// How many times a caller has begun waiting for the connection because it was not
    /// connected (a request or call made offline, or retried after timing out unsent). Lets
    /// tests observe such a wait instead of guessing at its timing.
    var offlineWaitCount: UInt64 {
        lock.withLock { $0.nextID }
    }

    /// Whether the connection is started and still trying (not idle, closed or given up).
    var isRunning: Bool {
        lock.withLock { $0.phase == .running && !$0.gaveUp }
    }

    /// The open transport, if connected.
    public var currentTransport: (any MessageTransport)? {
        lock.withLock { $0.link?.transport }
    }
}
