import Synchronization
internal import RpcTransport

/// The server side of one HTTP batch: request lines go in as inbound messages, whatever the
/// session sends is collected for the answer.
final class CollectingTransport: MessageTransport {
    private struct State {
        var handler: (@Sendable (TransportEvent) -> Void)?
        var collected: [TransportMessage] = []
        var transportState: TransportState = .open
    }

    private let lock = Mutex(State())

    var state: TransportState {
        lock.withLock { $0.transportState }
    }

    func start(_ handler: @escaping @Sendable (TransportEvent) -> Void) {
        lock.withLock { $0.handler = handler }
    }

    /// Delivers `messages` as inbound messages, in order.
    func feed(_ messages: [TransportMessage]) {
        guard let handler = lock.withLock({ $0.handler }) else { return }
        for message in messages { handler(.message(message)) }
    }

    /// The messages sent so far, taken out.
    func takeCollected() -> [TransportMessage] {
        lock.withLock { state in
            defer { state.collected = [] }
            return state.collected
        }
    }

    func enqueue(_ message: TransportMessage) throws(TransportError) {
        let error = lock.withLock { state -> TransportError? in
            guard state.transportState.isOpen else {
                return TransportError(code: .closed, message: "the HTTP batch has been answered")
            }
            state.collected.append(message)
            return nil
        }
        if let error { throw error }
    }

    func send(_ message: TransportMessage) async throws(TransportError) {
        try enqueue(message)
    }

    func close(code: CloseCode, reason: String) async {
        let closure = TransportClosure(code: code, reason: reason, initiatedLocally: true)
        let handler = lock.withLock { state -> (@Sendable (TransportEvent) -> Void)? in
            guard !state.transportState.isClosed else { return nil }
            state.transportState = .closed(closure)
            return state.handler
        }
        handler?(.closed(closure))
    }

    func stateUpdates() -> AsyncStream<TransportState> {
        let (stream, continuation) = AsyncStream<TransportState>.makeStream()
        continuation.yield(state)
        continuation.finish()
        return stream
    }
}
