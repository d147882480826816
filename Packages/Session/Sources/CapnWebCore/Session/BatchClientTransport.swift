import Synchronization
internal import RpcTransport

/// A message transport over one HTTP batch: it collects what the session sends and posts it all
/// in one request, then delivers the answer's lines as inbound messages. Then the session ends;
/// nothing more can be sent.
///
/// The request leaves when the batch's closure returns (``finish()``), or once a result has been
/// asked for (a `pull` or `stream` message) and nothing new has come for ``delay`` (time for
/// the closure's concurrent tasks, such as `async let`s, to add their calls). However long the
/// closure takes between calls that nobody awaits yet, they all go in the one request.
final class BatchClientTransport: MessageTransport {
    private struct State {
        var handler: (@Sendable (TransportEvent) -> Void)?
        var pending: [TransportEvent] = []
        var outbox: [TransportMessage] = []
        var deadline: ContinuousClock.Instant?
        /// The task that posts the request once no message has come for the delay. Owned by
        /// this transport: awaited (or cancelled with its caller) by ``finish()``, and stopped
        /// (unless already posting) and awaited by ``close(code:reason:)``. None starts once the
        /// transport is closed.
        var sender: Task<Void, Never>?
        /// Whether the sender has taken the messages and is posting them.
        var posting = false
        var sent = false
        /// Whether a result has been asked for: only then does the quiet time count.
        var awaited = false
        var transportState: TransportState = .open
        var observers: [AsyncStream<TransportState>.Continuation] = []
        var onAnswered: (@Sendable () -> Void)?
    }

    private let exchange: @Sendable ([TransportMessage]) async throws(TransportError) -> [TransportMessage]
    private let delay: Duration
    private let lock = Mutex(State())
    /// Runs just before the request is assembled: sends the calls still held and closes the
    /// session to new ones (see ``beforePost(_:)``).
    private let prepare = Mutex<(@Sendable () async -> Void)?>(nil)

    /// The first bytes of the messages that ask for a result.
    private static let pullPrefix = Array(#"["pull""#.utf8)
    private static let streamPrefix = Array(#"["stream""#.utf8)

    /// - Parameters:
    ///   - delay: The quiet time after the latest message before the batch leaves.
    ///   - exchange: Posts the batch and returns the answer's messages.
    init(
        delay: Duration,
        exchange: @escaping @Sendable ([TransportMessage]) async throws(TransportError) -> [TransportMessage]
    ) {
        self.delay = delay
        self.exchange = exchange
    }

    /// Sets what runs just before the request is assembled: it may still send messages, which
    /// go in the request.
    func beforePost(_ body: @escaping @Sendable () async -> Void) {
        prepare.withLock { $0 = body }
    }

    /// Sets what runs once the answer's messages are delivered: ending the session.
    func onAnswered(_ handler: @escaping @Sendable () -> Void) {
        lock.withLock { $0.onAnswered = handler }
    }

    var state: TransportState {
        lock.withLock { $0.transportState }
    }

    func start(_ handler: @escaping @Sendable (TransportEvent) -> Void) {
        let pending = lock.withLock { state -> [TransportEvent] in
            state.handler = handler
            defer { state.pending = [] }
            return state.pending
        }
        for event in pending { handler(event) }
    }

    func enqueue(_ message: TransportMessage) throws(TransportError) {
        let error = lock.withLock { state -> TransportError? in
            // Once the batch has left, what the session sends (releases, mostly) goes nowhere,
            // as with the reference client; the session ends when the answer is delivered.
            guard !state.sent else { return nil }
            guard state.transportState.isOpen else {
                return TransportError(code: .closed, message: "the HTTP batch has already been answered")
            }
            state.outbox.append(message)
            if !state.awaited, message.bytes.starts(with: Self.pullPrefix) || message.bytes.starts(with: Self.streamPrefix) {
                state.awaited = true
            }
            guard state.awaited else { return nil }
            if state.deadline.map({ $0 > .now }) ?? true {
                state.deadline = .now + delay
            }
            if state.sender == nil {
                state.sender = Task { [self] in await runSender() }
            }
            return nil
        }
        if let error { throw error }
    }

    func send(_ message: TransportMessage) async throws(TransportError) {
        try enqueue(message)
    }

    /// Closes the batch: nothing more is sent. A sender still waiting for its quiet time is
    /// stopped (the batch cannot leave any more); one already posting is let finish, as
    /// ``finish()`` would. Returns once the sender has ended.
    func close(code: CloseCode, reason: String) async {
        let closure = TransportClosure(code: code, reason: reason, initiatedLocally: true)
        finishState(closure, deliver: true)
        let (sender, posting) = lock.withLock { ($0.sender, $0.posting) }
        guard let sender else { return }
        if !posting { sender.cancel() }
        await sender.value
    }

    func stateUpdates() -> AsyncStream<TransportState> {
        let (stream, continuation) = AsyncStream<TransportState>.makeStream()
        let current = lock.withLock { state -> TransportState in
            if !state.transportState.isClosed { state.observers.append(continuation) }
            return state.transportState
        }
        continuation.yield(current)
        if current.isClosed { continuation.finish() }
        return stream
    }

    /// Sends what is still waiting at once and returns when the answer has been delivered (or
    /// nothing was ever sent).
    func finish() async {
        let sender = lock.withLock { state -> Task<Void, Never>? in
            state.deadline = .now
            if state.sender == nil, !state.sent, !state.outbox.isEmpty {
                state.sender = Task { [self] in await runSender() }
            }
            return state.sender
        }
        guard let sender else { return }
        await withTaskCancellationHandler {
            await sender.value
        } onCancel: {
            sender.cancel()
        }
    }

    /// Waits until no message has come for ``delay`` (or the closure returned), then posts the
    /// batch.
    private func runSender() async {
        while true {
            guard let deadline = lock.withLock({ $0.deadline }) else { return }
            if ContinuousClock.now >= deadline { break }
            do {
                try await Task.sleep(until: deadline, clock: .continuous)
            } catch {
                break
            }
        }
        if let prepare = prepare.withLock({ $0 }) {
            await prepare()
        }
        let taken = lock.withLock { state -> [TransportMessage]? in
            guard !state.transportState.isClosed else { return nil }
            state.sent = true
            state.posting = true
            defer { state.outbox = [] }
            return state.outbox
        }
        guard let messages = taken else { return }
        do {
            let answers = try await exchange(messages)
            for answer in answers { deliver(.message(answer)) }
            lock.withLock { $0.onAnswered }?()
            finishState(TransportClosure(code: .normal, reason: "Batch RPC request ended.", initiatedLocally: true), deliver: true)
        } catch {
            finishState(TransportClosure(code: nil, initiatedLocally: false, error: error), deliver: true)
        }
    }

    private func deliver(_ event: TransportEvent) {
        let handler = lock.withLock { state -> (@Sendable (TransportEvent) -> Void)? in
            if state.handler == nil { state.pending.append(event) }
            return state.handler
        }
        handler?(event)
    }

    private func finishState(_ closure: TransportClosure, deliver shouldDeliver: Bool) {
        let observers = lock.withLock { state -> [AsyncStream<TransportState>.Continuation]? in
            guard !state.transportState.isClosed else { return nil }
            state.transportState = .closed(closure)
            state.sent = true
            defer { state.observers = [] }
            return state.observers
        }
        guard let observers else { return }
        for observer in observers {
            observer.yield(.closed(closure))
            observer.finish()
        }
        if shouldDeliver { deliver(.closed(closure)) }
    }
}
