import Synchronization
internal import RpcTransport

/// The connection behind an ``RpcSession``: the current protocol engine and its state.
final class SessionConnection: Sendable {
    private struct State {
        var core: SessionCore?
        var lastError: (any Error)?
        var connectionState: ConnectionState = .idle
        var observers: [UInt64: AsyncStream<ConnectionState>.Continuation] = [:]
        var nextObserver: UInt64 = 0
        var disconnectHandlers: [@Sendable ((any Error)?) -> Void] = []
        var reconnectHandlers: [@Sendable () -> Void] = []
    }

    let configuration: Configuration
    let makeMain: @Sendable () -> (any RpcTarget)?
    let trace: (@Sendable (_ sent: Bool, _ text: String) -> Void)?
    private let state = Mutex(State())

    init(
        configuration: Configuration,
        makeMain: @escaping @Sendable () -> (any RpcTarget)?,
        trace: (@Sendable (_ sent: Bool, _ text: String) -> Void)? = nil
    ) {
        self.configuration = configuration
        self.makeMain = makeMain
        self.trace = trace
    }

    func currentCore() -> SessionCore? {
        state.withLock { $0.core }
    }

    var lastError: (any Error)? {
        state.withLock { $0.lastError }
    }

    /// Starts a protocol engine on an open transport and makes it current.
    @discardableResult
    func attach(_ transport: any MessageTransport) -> SessionCore {
        let core = SessionCore(
            transport: transport,
            main: makeMain().map { TargetHook($0) },
            limits: configuration.limits,
            callTimeout: configuration.timeout,
            trace: trace)
        let wasReconnect = state.withLock { state -> Bool in
            let was = state.core != nil || state.lastError != nil
            state.core = core
            return was
        }
        core.onBroken { [weak self, weak core] error in
            guard let self, let core else { return }
            self.detached(core, error: error)
        }
        core.start()
        publish(.connected)
        if wasReconnect {
            for handler in state.withLock({ $0.reconnectHandlers }) { handler() }
        }
        return core
    }

    private func detached(_ core: SessionCore, error: RpcError) {
        let current = state.withLock { state -> Bool in
            guard state.core === core else { return false }
            state.core = nil
            state.lastError = error
            return true
        }
        guard current else { return }
        publish(.disconnected(error))
        for handler in state.withLock({ $0.disconnectHandlers }) { handler(error) }
    }

    /// Announces a state to every observer.
    func publish(_ newState: ConnectionState) {
        let observers = state.withLock { state in
            state.connectionState = newState
            return Array(state.observers.values)
        }
        for observer in observers { observer.yield(newState) }
    }

    /// A stream of states, starting with the current one.
    func states() -> AsyncStream<ConnectionState> {
        let (stream, continuation) = AsyncStream<ConnectionState>.makeStream()
        let current = state.withLock { state -> ConnectionState in
            let id = state.nextObserver
            state.nextObserver += 1
            state.observers[id] = continuation
            continuation.onTermination = { [weak self] _ in
                _ = self?.state.withLock { $0.observers.removeValue(forKey: id) }
            }
            return state.connectionState
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

    /// Shuts the current engine down and finishes every state stream.
    func close() async {
        let core = state.withLock { $0.core }
        if let core {
            await core.shutdown(reason: "RPC session was shut down by disposing the main stub")
        }
        let observers = state.withLock { state in
            defer { state.observers = [:] }
            return Array(state.observers.values)
        }
        for observer in observers {
            observer.yield(.disconnected(nil))
            observer.finish()
        }
    }
}
