import Synchronization
internal import RpcTransport

/// The server side of one HTTP batch: request lines go in as inbound messages, whatever the
/// session sends is collected for the answer.
///
/// The answer's body (the messages, one a line) stays within `maxBodySize`, the size a
/// WebSocket message may have: a message that would take it past that is refused as too
/// large, as a WebSocket refuses a message over its limit, so the session rejects that call
/// saying why and the rest of the batch is answered. The last part of the body is kept for
/// small messages (such rejections, releases), so that a refusal always fits.
final class CollectingTransport: MessageTransport {
    private struct State {
        var handler: (@Sendable (TransportEvent) -> Void)?
        var collected: [TransportMessage] = []
        /// The body's size so far: the messages and the line breaks between them.
        var bodySize = 0
        var transportState: TransportState = .open
    }

    private let lock = Mutex(State())
    /// The largest body the answer may have.
    let maxBodySize: Int

    /// Messages up to this size may use the part of the body kept for them.
    static let smallMessage = 1024

    /// A collector whose answer stays within `maxBodySize` bytes.
    init(maxBodySize: Int) {
        self.maxBodySize = maxBodySize
    }

    /// The part of the body only small messages may use.
    private var reserve: Int {
        min(64 * 1024, maxBodySize / 8)
    }

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
            let size = message.bytes.count
            let added = state.collected.isEmpty ? size : OutputBudget.sum(size, 1)
            let total = OutputBudget.sum(state.bodySize, added)
            let cap = size <= Self.smallMessage ? maxBodySize : maxBodySize - reserve
            guard total <= cap else {
                return TransportError(
                    code: .messageTooLarge,
                    message: "the batch answer would be \(total) bytes, over the limit of \(maxBodySize)",
                    closeCode: .messageTooBig)
            }
            state.bodySize = total
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
