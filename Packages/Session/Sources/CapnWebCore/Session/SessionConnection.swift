import Synchronization
@_spi(RpcImplementation) internal import RpcTransport

/// The connection behind an ``RpcSession``: the current protocol engine, its state, and (for a
/// session opened from a URL) the ``ReconnectingConnection`` that opens and
/// reconnects its transports.
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
        /// The state of a session on a given transport (one opened from a URL has its
        /// reconnecting connection's).
        var connectionState: ConnectionState = .connecting
        var observers = StateObservers<ConnectionState>()
        var disconnectHandlers: [@Sendable ((any Error)?) -> Void] = []
        var reconnectHandlers: [@Sendable () -> Void] = []
        /// Set by ``close()``: nothing is attached afterwards.
        var closed = false
    }

    /// Lets the reconnecting connection's handler reach the session connection without
    /// keeping it alive.
    private final class Owner: Sendable {
        private struct Reference {
            weak var connection: SessionConnection?
        }

        private let reference = Mutex(Reference())

        var connection: SessionConnection? {
            get { reference.withLock { $0.connection } }
            set { reference.withLock { $0.connection = newValue } }
        }
    }

    let configuration: Configuration
    let makeMain: @Sendable () -> (any RpcTarget)?
    let trace: (@Sendable (_ sent: Bool, _ text: String) -> Void)?
    /// Opens, watches and reconnects the transports of a session opened from a URL; `nil` for
    /// a session started on a given transport, which never reconnects.
    private let reconnecting: ReconnectingConnection?
    /// The executor every connection of this session delivers on, when it is known in advance
    /// (a session opened from a URL pins one event loop).
    let pinnedExecutor: (any TaskExecutor)?
    private let state = Mutex(State())
    /// The closes of the transports its engines end after an abort: awaited by ``close(within:)``.
    private let closings = TransportClosings()
    /// For an HTTP batch session, the calls made in it not sent yet; `nil` otherwise.
    let batchCalls: BatchCallRegistry?

    init(
        configuration: Configuration,
        makeMain: @escaping @Sendable () -> (any RpcTarget)?,
        trace: (@Sendable (_ sent: Bool, _ text: String) -> Void)? = nil,
        executor: (any TaskExecutor)? = nil,
        connector: Connector? = nil,
        batchCalls: BatchCallRegistry? = nil
    ) {
        self.batchCalls = batchCalls
        self.pinnedExecutor = executor
        self.configuration = configuration
        self.makeMain = makeMain
        self.trace = trace ?? configuration.trace
        guard let connector else {
            self.reconnecting = nil
            return
        }
        let owner = Owner()
        // The connector applies the connect timeout to the TCP connect and to the handshake,
        // one after the other.
        var settings = ReconnectingConnectionConfiguration(
            reconnect: configuration.reconnect,
            connectTimeout: configuration.connectTimeout * 2,
            keepalive: nil,
            offlineQueueLimit: nil)
        settings.observability = configuration.observability
        settings.protocolName = "capnweb"
        let reconnecting = ReconnectingConnection(
            configuration: settings,
            factory: { _ in
                do {
                    return try await connector()
                } catch {
                    throw Self.lost(error)
                }
            },
            handler: .transports { transport, generation in
                owner.connection?.attach(transport, generation: generation)
            })
        self.reconnecting = reconnecting
        owner.connection = self
        // When reconnecting gives up after failed connects, calls fail with the last connect
        // error; after a loss with no attempt left they keep the engine's own error.
        reconnecting.onStateChange { [weak self] newState in
            if case .disconnected(let error as TransportError) = newState, let failure = error.cause as? RpcError {
                self?.state.withLock { $0.lastError = failure }
            }
        }
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
    func attach(_ transport: any MessageTransport, generation: UInt64 = 0) -> SessionCore? {
        let core = SessionCore(
            transport: transport,
            main: makeMain().map { TargetHook($0) },
            limits: configuration.limits,
            callTimeout: configuration.timeout,
            trace: trace,
            closings: closings,
            observation: SessionObservation.make(configuration.observability))
        let wasReconnect = state.withLock { state -> Bool? in
            guard !state.closed else { return nil }
            let was = state.core != nil || state.lastError != nil
            state.core = core
            state.latest = core
            return was
        }
        guard let wasReconnect else { return nil }
        // The handler is stored in the engine, so it names the engine by identity rather than
        // holding it (it runs while the engine is alive).
        let coreID = ObjectIdentifier(core)
        core.onBroken { [weak self] error in
            self?.detached(coreID, generation: generation, error: error)
        }
        core.start()
        publish(.connected)
        if wasReconnect {
            for handler in state.withLock({ $0.reconnectHandlers }) { handler() }
        }
        return core
    }

    /// Opens the first connection.
    func connectFirst() async throws(RpcError) {
        guard let reconnecting else { throw .invalidTarget("this session has no address to connect to") }
        do {
            try await reconnecting.start()
        } catch {
            let failure = Self.lost(error)
            state.withLock { $0.lastError = failure }
            throw failure
        }
    }

    /// Drops the current connection (if any) and opens a new one at once.
    func reconnect() async throws(RpcError) {
        guard let reconnecting else { throw .invalidTarget("this session has no address to reconnect to") }
        let taken = state.withLock { state -> SessionCore?? in
            guard !state.closed else { return nil }
            defer { state.core = nil }
            if state.core != nil { state.lastError = RpcError.connectionLost(nil) }
            return .some(state.core)
        }
        guard let taken else { throw .connectionLost(lastError) }
        do {
            try await reconnecting.reconnect { _ in
                await taken?.shutdown(reason: "RPC session is reconnecting")
            }
        } catch {
            let failure = Self.lost(error)
            state.withLock { $0.lastError = failure }
            throw failure
        }
    }

    private func detached(_ coreID: ObjectIdentifier, generation: UInt64, error: RpcError) {
        let current = state.withLock { state -> SessionCore? in
            guard let core = state.core, ObjectIdentifier(core) == coreID else { return nil }
            state.core = nil
            state.lastError = error
            return core
        }
        guard let current else { return }
        for handler in state.withLock({ $0.disconnectHandlers }) { handler(error) }
        guard let reconnecting else {
            publish(.disconnected(error))
            return
        }
        // The reconnecting connection notices the transport close (the engine closes it when
        // it ends) and reconnects per the policy; an engine that ended with its transport still
        // open (a message it could not encode) is reported.
        if current.transport.state.isOpen {
            reconnecting.transportFailed(
                generation: generation,
                error: TransportError(code: .protocolViolation, message: "\(error)", closeCode: .applicationError))
        }
    }

    /// `error` as the session reports a lost connection.
    static func lost(_ error: any Error) -> RpcError {
        if let error = error as? RpcError { return error }
        if let error = error as? TransportError, let cause = error.cause as? RpcError { return cause }
        return .connectionLost(error)
    }

    /// Announces a state to every observer of a session on a given transport.
    func publish(_ newState: ConnectionState) {
        guard reconnecting == nil else { return }
        let observers = state.withLock { state -> [AsyncStream<ConnectionState>.Continuation] in
            guard !state.closed else { return [] }
            state.connectionState = newState
            return state.observers.all
        }
        for observer in observers { observer.yield(newState) }
    }

    /// A stream of states, starting with the current one.
    func states() -> AsyncStream<ConnectionState> {
        if let reconnecting { return reconnecting.stateUpdates() }
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

    /// Stops reconnecting, shuts the current engine down, waits for the closes an abort started
    /// and finishes every state stream.
    ///
    /// - Parameters:
    ///   - limit: How long to wait for the peer's half of the close handshake; then the
    ///     connection is cut (``MessageTransport/abort(_:)``), at once for `.zero`.
    ///     `nil` waits as long as the transport's own close timeout.
    ///   - code: The close code: 3000 by default, as disposing the main stub closes.
    ///   - reason: The close reason, also the message of the calls it fails.
    func close(
        within limit: Duration? = nil, code: CloseCode = .applicationError,
        reason: String = "RPC session was shut down by disposing the main stub"
    ) async {
        let deadline = limit.map { ContinuousClock.now + $0 }
        await shutDown(within: limit, code: code, reason: reason)
        // An engine that ended on an abort may still be closing its transport: that close is
        // this connection's too, bounded by the same limit.
        await closings.finish(until: deadline)
        guard reconnecting == nil else { return }
        let observers = state.withLock { state in
            state.connectionState = .disconnected(nil)
            return state.observers.removeAll()
        }
        for observer in observers {
            observer.yield(.disconnected(nil))
            observer.finish()
        }
    }

    /// Stops reconnecting and shuts the current engine down (the first part of
    /// ``close(within:)``).
    private func shutDown(within limit: Duration?, code: CloseCode, reason: String) async {
        let core = state.withLock { state -> SessionCore? in
            state.closed = true
            return state.core
        }
        if let reconnecting {
            await reconnecting.close { transport in
                guard let limit else {
                    await core?.shutdown(reason: reason, code: code)
                    return
                }
                // The engine may have ended already (an abort, a bad message) with its
                // transport still closing: the limit holds for that close too.
                core?.end(.failed(.connectionLost(RpcErrorValue(message: reason))))
                await Self.close(transport, code: code, reason: reason, within: limit)
            }
            return
        }
        if let core {
            if let limit {
                core.end(.failed(.connectionLost(RpcErrorValue(message: reason))))
                await Self.close(core.transport, code: code, reason: reason, within: limit)
            } else {
                await core.shutdown(reason: reason, code: code)
            }
        }
    }

    /// Closes `transport` with a close handshake, but cuts the connection once `limit` has
    /// passed without the peer's answer (at once for `.zero` or less).
    static func close(
        _ transport: any MessageTransport, code: CloseCode = .applicationError, reason: String, within limit: Duration
    ) async {
        let cut = TransportError(
            code: .closed, message: "the peer did not finish the close handshake in time", closeCode: .applicationError)
        guard limit > .zero else {
            await transport.abort(cut)
            return
        }
        // When the limit passes first (or the closer's own task is cancelled), the connection is
        // cut, which ends the close at once.
        _ = try? await Deadline.race(
            limit,
            onTimeout: {
                guard !transport.state.isClosed else { return }
                await transport.abort(cut)
            }
        ) {
            await transport.close(code: code, reason: reason)
        }
    }
}
