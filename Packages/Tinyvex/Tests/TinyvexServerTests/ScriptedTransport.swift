import RpcTransport
import Synchronization

/// The server's end of an in-memory connection whose client reads as fast as the test says:
/// freely, slowly (each message taken after a delay), or not at all until resumed. What the
/// server sends is kept for the test; what the test sends is delivered to the server.
final class ScriptedTransport: MessageTransport, Sendable {
    enum Reading: Sendable {
        case freely
        case slowly(Duration)
        case paused
    }

    private struct State {
        var handler: (@Sendable (TransportEvent) -> Void)?
        var backlog: [TransportEvent] = []
        var lifecycle: TransportState = .open
        var reading: Reading
        var sent: [TransportMessage] = []
        var resumers: [CheckedContinuation<Void, Never>] = []
    }

    private let storage: Mutex<State>

    init(reading: Reading) {
        storage = Mutex(State(reading: reading))
    }

    var state: TransportState { storage.withLock { $0.lifecycle } }

    /// Everything the server has sent that the client has read.
    var sent: [TransportMessage] { storage.withLock { $0.sent } }

    /// Changes how the client reads; waiting sends go on at once when it reads again.
    func setReading(_ reading: Reading) {
        let resumers = storage.withLock { state in
            state.reading = reading
            defer { state.resumers = [] }
            if case .paused = reading { return [CheckedContinuation<Void, Never>]() }
            return state.resumers
        }
        for resumer in resumers { resumer.resume() }
    }

    /// Delivers a message from the client to the server.
    func deliver(_ message: TransportMessage) {
        let handler = storage.withLock { state -> (@Sendable (TransportEvent) -> Void)? in
            guard state.handler != nil else {
                state.backlog.append(.message(message))
                return nil
            }
            return state.handler
        }
        handler?(.message(message))
    }

    func start(_ handler: @escaping @Sendable (TransportEvent) -> Void) {
        let backlog = storage.withLock { state in
            state.handler = handler
            defer { state.backlog = [] }
            return state.backlog
        }
        for event in backlog { handler(event) }
    }

    func enqueue(_ message: TransportMessage) throws(TransportError) {
        try storage.withLock { state throws(TransportError) in
            guard case .open = state.lifecycle else { throw TransportError(code: .closed, message: "closed") }
            state.sent.append(message)
        }
    }

    func send(_ message: TransportMessage) async throws(TransportError) {
        while true {
            let reading = storage.withLock { $0.reading }
            switch reading {
            case .freely:
                try enqueue(message)
                return
            case .slowly(let delay):
                try? await Task.sleep(for: delay)
                try enqueue(message)
                return
            case .paused:
                guard !state.isClosed else { throw TransportError(code: .closed, message: "closed") }
                await withCheckedContinuation { continuation in
                    let now = storage.withLock { state -> Bool in
                        if case .paused = state.reading, !state.lifecycle.isClosed {
                            state.resumers.append(continuation)
                            return false
                        }
                        return true
                    }
                    if now { continuation.resume() }
                }
            }
        }
    }

    func close(code: CloseCode, reason: String) async {
        let closure = TransportClosure(code: code, reason: reason, initiatedLocally: true)
        let (handler, resumers) = storage.withLock { state -> ((@Sendable (TransportEvent) -> Void)?, [CheckedContinuation<Void, Never>]) in
            guard !state.lifecycle.isClosed else { return (nil, []) }
            state.lifecycle = .closed(closure)
            defer { state.resumers = [] }
            return (state.handler, state.resumers)
        }
        for resumer in resumers { resumer.resume() }
        handler?(.closed(closure))
    }

    /// How the server closed the connection, once it has.
    var closure: TransportClosure? {
        if case .closed(let closure) = storage.withLock({ $0.lifecycle }) { return closure }
        return nil
    }

    func stateUpdates() -> AsyncStream<TransportState> {
        let current = storage.withLock { $0.lifecycle }
        return AsyncStream { continuation in
            continuation.yield(current)
            continuation.finish()
        }
    }
}

