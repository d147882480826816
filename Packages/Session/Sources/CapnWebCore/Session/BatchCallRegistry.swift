import Synchronization

/// The calls made in an HTTP batch that have not been sent yet, so that the POST takes every
/// one still held when it leaves, however long the batch's closure took between them.
///
/// Held weakly: a ref built and dropped before the POST leaves sends nothing.
final class BatchCallRegistry: Sendable {
    private struct Entry {
        weak var hook: DeferredCallHook?
    }

    private struct State {
        var entries: [Entry] = []
        /// Set once the POST has left: later calls cannot join it.
        var closed = false
    }

    private let state = Mutex(State())

    init() {}

    /// Remembers a call made in the batch.
    func register(_ hook: DeferredCallHook) {
        state.withLock { state in
            guard !state.closed else { return }
            state.entries.append(Entry(hook: hook))
        }
    }

    /// Sends, in the order they were made, every call still held, each asking for its result,
    /// and closes the registry.
    func sendHeldCalls() {
        let hooks = state.withLock { state -> [DeferredCallHook] in
            state.closed = true
            defer { state.entries = [] }
            return state.entries.compactMap(\.hook)
        }
        for hook in hooks {
            let sent = hook.dispatch(awaited: true)
            if let imported = sent as? ImportHook, imported.isPromise {
                imported.core.pull(imported)
            }
        }
    }
}
