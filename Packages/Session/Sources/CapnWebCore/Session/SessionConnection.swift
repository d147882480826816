import Synchronization
@_spi(RpcImplementation) internal import RpcTransport

/// The connection behind an ``RpcSession``: the current protocol engine, its state, and (for a
/// session opened from a URL) the reconnect loop.
final class SessionConnection: Sendable {
    /// Opens a new transport to the same peer.
    typealias Connector = @Sendable () async throws -> any MessageTransport

    private struct State {
        var core: SessionCore?
        /// The most recent engine, kept after it ends so its (emptied) tables can be read. An
        /// ended engine holds no targets or handlers. Held strongly: a weak reference would give
        /// the engine a side table, which makes every retain and release of it slower.
        var latest: SessionCore?
        var lastError: (any Error)?
        var connectionState: ConnectionState = .idle
        var observers = StateObservers<ConnectionState>()
        var disconnectHandlers: [@Sendable ((any Error)?) -> Void] = []
        var reconnectHandlers: [@Sendable () -> Void] = []
        /// Set by ``close()``: nothing is attached or reconnected afterwards.
        var closed = false
        /// A reconnect (automatic or asked for) is in progress.
        var reconnecting = false
        /// The reconnect loops still running; ``close()`` cancels and awaits them.
        var reconnectTasks: [UInt64: Task<Void, Never>] = [:]
        var nextTask: UInt64 = 0
    }

    let configuration: Configuration
    let makeMain: @Sendable () -> (any RpcTarget)?
    let trace: (@Sendable (_ sent: Bool, _ text: String) -> Void)?
    /// How to open a new transport; `nil` for a session started on a given transport, which
    /// never reconnects.
    let connector: Connector?
    /// The executor every connection of this session delivers on, when it is known in advance
    /// (a session opened from a URL pins one event loop).
    let pinnedExecutor: (any TaskExecutor)?
    private let state = Mutex(State())

    init(
        configuration: Configuration,
        makeMain: @escaping @Sendable () -> (any RpcTarget)?,
        trace: (@Sendable (_ sent: Bool, _ text: String) -> Void)? = nil,
        executor: (any TaskExecutor)? = nil,
        connector: Connector? = nil
    ) {
        self.pinnedExecutor = executor
        self.configuration = configuration
        self.makeMain = makeMain
        self.trace = trace ?? configuration.trace
        self.connector = connector
    }

    /// The most recent engine, current or ended.
    func latestCore() -> SessionCore? {
        state.withLock { $0.latest }
    }

    func currentCore() -> SessionCore? {
        state.withLock { $0.core }
    }

    /// Where the current connection delivers its events: the pinned executor, or the
    /// transport's.
    var executor: (any TaskExecutor)? {
        pinnedExecutor ?? currentCore()?.transport.executor
    }

    var lastError: (any Error)? {
        state.withLock { $0.lastError }
    }

    /// Starts a protocol engine on an open transport and makes it current; `nil` (and nothing
    /// started) once the connection is closed.
    @discardableResult
    func attach(_ transport: any MessageTransport) -> SessionCore? {
        let core = SessionCore(
            transport: transport,
            main: makeMain().map { TargetHook($0) },
            limits: configuration.limits,
            callTimeout: configuration.timeout,
            trace: trace)
        let wasReconnect = state.withLock { state -> Bool? in
            guard !state.closed else { return nil }
            let was = state.core != nil || state.lastError != nil
            state.core = core
            state.latest = core
            state.reconnecting = false
            return was
        }
        guard let wasReconnect else { return nil }
        // The handler is stored in the engine, so it names the engine by identity rather than
        // holding it (it runs while the engine is alive).
        let coreID = ObjectIdentifier(core)
        core.onBroken { [weak self] error in
            self?.detached(coreID, error: error)
        }
        core.start()
        publish(.connected)
        if wasReconnect {
            for handler in state.withLock({ $0.reconnectHandlers }) { handler() }
        }
        return core
    }

    /// Opens the first connection through ``connector``.
    func connectFirst() async throws(RpcError) {
        guard let connector else { throw .invalidArgument("this session has no address to connect to") }
        publish(.connecting)
        let transport: any MessageTransport
        do {
            transport = try await connector()
        } catch {
            let failure = Self.lost(error)
            state.withLock { $0.lastError = failure }
            publish(.disconnected(failure))
            throw failure
        }
        guard attach(transport) != nil else {
            await transport.close()
            throw .connectionLost(nil)
        }
    }

    /// Drops the current connection (if any) and opens a new one at once.
    func reconnect() async throws(RpcError) {
        guard let connector else { throw .invalidArgument("this session has no address to reconnect to") }
        let taken = state.withLock { state -> (tasks: [Task<Void, Never>], core: SessionCore?)? in
            guard !state.closed else { return nil }
            state.reconnecting = true
            let core = state.core
            state.core = nil
            return (Array(state.reconnectTasks.values), core)
        }
        guard let taken else { throw .connectionLost(lastError) }
        for task in taken.tasks { task.cancel() }
        for task in taken.tasks { await task.value }
        if let core = taken.core {
            state.withLock { $0.lastError = RpcError.connectionLost(nil) }
            await core.shutdown(reason: "RPC session is reconnecting")
        }
        publish(.reconnecting(attempt: 1))
        let transport: any MessageTransport
        do {
            transport = try await connector()
        } catch {
            let failure = Self.lost(error)
            state.withLock { state in
                state.lastError = failure
                state.reconnecting = false
            }
            publish(.disconnected(failure))
            throw failure
        }
        guard attach(transport) != nil else {
            await transport.close()
            throw .connectionLost(lastError)
        }
    }

    private func detached(_ coreID: ObjectIdentifier, error: RpcError) {
        let outcome = state.withLock { state -> (current: Bool, reconnect: Bool) in
            guard let core = state.core, ObjectIdentifier(core) == coreID else { return (false, false) }
            state.core = nil
            state.lastError = error
            let reconnect =
                !state.closed && !state.reconnecting && connector != nil
                && configuration.reconnect.allows(attempt: 1)
            if reconnect { state.reconnecting = true }
            return (true, reconnect)
        }
        guard outcome.current else { return }
        for handler in state.withLock({ $0.disconnectHandlers }) { handler(error) }
        if outcome.reconnect {
            startReconnectLoop(after: error)
        } else {
            publish(.disconnected(error))
        }
    }

    private func startReconnectLoop(after error: RpcError) {
        state.withLock { locked in
            guard !locked.closed else { return }
            let id = locked.nextTask
            locked.nextTask += 1
            locked.reconnectTasks[id] = Task { [self] in
                await reconnectLoop(after: error)
                _ = state.withLock { $0.reconnectTasks.removeValue(forKey: id) }
            }
        }
    }

    /// Retries per the policy, with its backoff, until a connection opens, the attempts run
    /// out, or the loop is cancelled by ``close()`` or ``reconnect()``.
    private func reconnectLoop(after error: RpcError) async {
        guard let connector else { return }
        let policy = configuration.reconnect
        var attempt = 1
        var lastFailure: any Error = error
        while policy.allows(attempt: attempt) {
            if Task.isCancelled || state.withLock({ $0.closed }) { return }
            publish(.reconnecting(attempt: attempt))
            do {
                try await Task.sleep(for: policy.backoff.delay(forAttempt: attempt))
            } catch {
                return
            }
            do {
                let transport = try await connector()
                if attach(transport) == nil { await transport.close() }
                return
            } catch {
                if Task.isCancelled { return }
                lastFailure = error
                attempt += 1
            }
        }
        let failure = Self.lost(lastFailure)
        let gaveUp = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            state.lastError = failure
            state.reconnecting = false
            return true
        }
        if gaveUp { publish(.disconnected(failure)) }
    }

    /// `error` as the session reports a lost connection.
    static func lost(_ error: any Error) -> RpcError {
        if let error = error as? RpcError { return error }
        return .connectionLost(error)
    }

    /// Announces a state to every observer.
    func publish(_ newState: ConnectionState) {
        let observers = state.withLock { state -> [AsyncStream<ConnectionState>.Continuation] in
            guard !state.closed else { return [] }
            state.connectionState = newState
            return state.observers.all
        }
        for observer in observers { observer.yield(newState) }
    }

    /// A stream of states, starting with the current one.
    func states() -> AsyncStream<ConnectionState> {
        let (stream, continuation) = AsyncStream<ConnectionState>.makeStream()
        let current = state.withLock { state -> ConnectionState? in
            guard !state.closed else { return nil }
            state.observers.add(continuation) { [weak self] id in
                _ = self?.state.withLock { $0.observers.remove(id) }
            }
            return state.connectionState
        }
        guard let current else {
            continuation.yield(.disconnected(nil))
            continuation.finish()
            return stream
        }
        continuation.yield(current)
        return stream
    }

    func onDisconnect(_ handler: @escaping @Sendable ((any Error)?) -> Void) {
        state.withLock { $0.disconnectHandlers.append(handler) }
    }

    func onReconnect(_ handler: @escaping @Sendable () -> Void) {
        state.withLock { $0.reconnectHandlers.append(handler) }
    }

    /// Stops any reconnect loop, shuts the current engine down and finishes every state stream.
    func close() async {
        let (core, tasks) = state.withLock { state -> (SessionCore?, [Task<Void, Never>]) in
            state.closed = true
            return (state.core, Array(state.reconnectTasks.values))
        }
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
        if let core {
            await core.shutdown(reason: "RPC session was shut down by disposing the main stub")
        }
        let observers = state.withLock { state in
            state.connectionState = .disconnected(nil)
            return state.observers.removeAll()
        }
        for observer in observers {
            observer.yield(.disconnected(nil))
            observer.finish()
        }
    }
}
