import Synchronization

/// The calls made in an HTTP batch that have not been sent yet, so that the POST takes every
/// one still held when it leaves, however long the batch's closure took between them, and the
/// calls sent with ``Ref/sendNow()``, whose results the POST asks for.
///
/// Held weakly: a ref built and dropped before the POST leaves sends nothing.
final class BatchCallRegistry: Sendable {
    private struct Entry {
        weak var hook: DeferredCallHook?
    }

    private struct State {
        var entries: [Entry] = []
        /// Calls sent with `sendNow()`: sent already, their results not asked for yet.
        var sentEarly: [Entry] = []
        /// Set once the POST has left: later calls cannot join it.
        var closed = false
    }

    private let state = Mutex(State())

    /// What a call made after the batch's request left fails with.
    static let lateCall = RpcError.connectionLost(
        RpcErrorValue(
            name: "BatchAlreadySent",
            message: "the HTTP batch's request has already been sent; a call made after it left cannot join it "
                + "(make every call of the batch before awaiting one of them, or use a WebSocket session)"))

    init() {}

    /// Remembers a call made in the batch.
    func register(_ hook: DeferredCallHook) {
        state.withLock { state in
            guard !state.closed else { return }
            state.entries.append(Entry(hook: hook))
        }
    }

    /// Remembers a call sent with `sendNow()`, so that the request asks for its result.
    func registerSentEarly(_ hook: DeferredCallHook) {
        state.withLock { state in
            guard !state.closed else { return }
            state.sentEarly.append(Entry(hook: hook))
        }
    }

    /// Sends, in the order they were made, every call still held and not sent yet, asking for
    /// its result (awaiting it is the only use left); asks for the results of the calls sent
    /// with `sendNow()` and still held; and closes the registry. A call already sent as the base
    /// of another is not asked for: the call on it was.
    func sendHeldCalls() {
        let (hooks, sentEarly) = state.withLock { state -> ([DeferredCallHook], [DeferredCallHook]) in
            state.closed = true
            defer {
                state.entries = []
                state.sentEarly = []
            }
            return (state.entries.compactMap(\.hook), state.sentEarly.compactMap(\.hook))
        }
        for hook in hooks where hook.isPending {
            _ = hook.dispatch(awaited: true)
        }
        for hook in sentEarly {
            if let imported = hook.dispatch() as? ImportHook, imported.isPromise {
                imported.core.pull(imported)
            }
        }
    }
}
