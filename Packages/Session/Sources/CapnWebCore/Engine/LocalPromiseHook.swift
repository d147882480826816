import Synchronization
internal import RpcWire

/// A promise settled by local code: a target's method running, a value being substituted, or a
/// remote answer being forwarded.
///
/// Operations made before it settles are queued and applied, in order, when it settles, which
/// keeps calls on one promise in the order they were made (E-order).
final class LocalPromiseHook: StubHook {
    /// One party waiting for the settlement.
    private enum Listener {
        case body(@Sendable (Settlement) -> Void)
        case waiter(SettlementWaiter)
        /// The peer pulled this promise as export `id` of a session.
        case answer(SessionCore, Int64)
        /// The peer pushed the call whose result this promise is as export `id` of a session
        /// and has not pulled it yet: the result counts toward what the peer holds unpulled.
        case unpulled(SessionCore, Int64)
        /// A session counts this promise among the calls the peer released while they run; it
        /// waits for nothing but the end.
        case released(SessionCore)

        func notify(_ settlement: Settlement) {
            switch self {
            case .body(let body): body(settlement)
            case .waiter(let waiter): waiter.resume(settlement)
            case .answer(let core, let id): core.answer(id, settlement)
            case .unpulled(let core, let id): core.countUnpulledResult(id, settlement)
            case .released(let core): core.releasedCallFinished()
            }
        }

        /// Whether this listener wants the value (a session counting a released call does not).
        var wantsValue: Bool {
            if case .released = self { return false }
            return true
        }

        /// Whether this listener counts the result of export `id` of `core` as unpulled.
        func counts(_ id: Int64, of core: SessionCore) -> Bool {
            guard case .unpulled(let listening, let counted) = self else { return false }
            return listening === core && counted == id
        }

        /// Whether this listener sends the settlement to the peer as export `id` of `core`.
        func answers(_ id: Int64, of core: SessionCore) -> Bool {
            guard case .answer(let listening, let answered) = self else { return false }
            return listening === core && answered == id
        }
    }

    private struct State {
        /// The first party waiting for the settlement, kept inline: most promises have one.
        var firstListener: Listener?
        /// The parties that registered after the first, in order; appended to in place (a list
        /// inside an enum payload would be copied on every append).
        var moreListeners: [Listener] = []
        var settlement: Settlement?
        /// The task computing the value, while it runs (see ``cancelRunning()``).
        var task: Task<Void, any Error>?
    }

    private let state = Mutex<State>(State())

    init() {}

    /// A promise already settled with `settlement`.
    init(settled settlement: Settlement) {
        state.withLock { $0.settlement = settlement }
    }

    var isPromise: Bool { true }

    var heldResult: HeldResult? {
        if let settlement = current { return .settled(settlement) }
        return .computing(self)
    }

    /// The settlement, if it has come.
    var current: Settlement? {
        state.withLock { $0.settlement }
    }

    /// Makes a promise that a task settles: `start` receives the promise and starts the task
    /// (with ``ImmediateTask/start(preferring:_:)``, so that calls reach their targets in the
    /// order they were made), whose body settles it with ``settle(from:)``.
    ///
    /// The task's closure is written by the caller so that it captures what the operation needs
    /// directly: one closure context per call, instead of one for the operation and another for
    /// a wrapper around it.
    static func run(_ start: (LocalPromiseHook) -> Task<Void, any Error>) -> LocalPromiseHook {
        let promise = LocalPromiseHook()
        let task = start(promise)
        promise.state.withLock { state in
            if state.settlement == nil { state.task = task }
        }
        return promise
    }

    /// Settles the promise with the outcome of `operation`: its value, or its error as a
    /// rejection. It runs where its caller runs (`nonsending`), so entering it costs no check of
    /// the task's executor.
    nonisolated(nonsending) func settle(from operation: nonisolated(nonsending) () async throws -> RpcPayload) async {
        do {
            resolve(try await operation())
        } catch {
            settle(.failure(Rejection(error)))
        }
    }

    /// Whether a task is still computing the value.
    var isRunning: Bool {
        state.withLock { $0.task != nil }
    }

    /// Cancels the task computing the value, if it still runs: the session that asked for it
    /// has ended.
    func cancelRunning() {
        state.withLock { $0.task }?.cancel()
    }

    /// The peer released export `id` of `core`, which is this promise, before its answer was
    /// sent: that answer is no longer wanted. When nothing else waits for the value either (no
    /// call pipelined on it, no other export of it, no local code awaiting it), the task
    /// computing it is cancelled; otherwise it runs on for them.
    func abandon(answering id: Int64, of core: SessionCore) {
        let task: Task<Void, any Error>? = state.withLock { state in
            guard state.settlement == nil else { return nil }
            if let first = state.firstListener, first.answers(id, of: core) {
                state.firstListener = state.moreListeners.isEmpty ? nil : state.moreListeners.removeFirst()
            } else if let index = state.moreListeners.firstIndex(where: { $0.answers(id, of: core) }) {
                state.moreListeners.remove(at: index)
            }
            guard state.firstListener?.wantsValue != true, !state.moreListeners.contains(where: \.wantsValue) else {
                return nil
            }
            return state.task
        }
        task?.cancel()
    }

    /// The peer released export `id` of `core`, which is this promise, without pulling it: its
    /// result no longer counts as unpulled there. The computation runs on (a call made for its
    /// effect is not cut short).
    func stopCounting(_ id: Int64, of core: SessionCore) {
        state.withLock { state in
            guard state.settlement == nil else { return }
            if let first = state.firstListener, first.counts(id, of: core) {
                state.firstListener = state.moreListeners.isEmpty ? nil : state.moreListeners.removeFirst()
            } else if let index = state.moreListeners.firstIndex(where: { $0.counts(id, of: core) }) {
                state.moreListeners.remove(at: index)
            }
        }
    }

    /// Resolves with `value`. A value that is itself a bare promise stub is followed, so only
    /// the final value is seen.
    func resolve(_ value: RpcPayload) {
        if let other = Self.promise(in: value), other !== self {
            adopt(other)
        } else {
            settle(.success(value))
        }
    }

    /// The promise `value` is, when it is a bare promise stub: a resolution with it follows it
    /// rather than settling with the stub.
    static func promise(in value: RpcPayload) -> (any StubHook)? {
        guard case .stub(let stub) = value, stub.path.isEmpty, stub.hook.isPromise else { return nil }
        return stub.hook
    }

    /// Settles like `other` once it settles.
    func adopt(_ other: any StubHook) {
        other.whenSettled { [self] settlement in settle(settlement) }
    }

    /// Settles the promise; later calls do nothing.
    ///
    /// Settling one promise settles the promises that follow it (a member read or a call made
    /// on it before it settled), and those settle theirs: a chain as long as a peer cares to
    /// pipeline. The chain is settled link after link by ``SettlementQueue``, never one link
    /// inside another, so no chain can exhaust the thread's stack. A promise settled while
    /// another settlement is being delivered on this thread is therefore delivered right after
    /// it, before the outermost `settle` returns.
    func settle(_ settlement: Settlement) {
        SettlementQueue.settle(self, with: settlement)
    }

    /// Records the settlement and notifies every listener, in the order they registered; does
    /// nothing when the promise has settled already. Only ``SettlementQueue`` calls it.
    func deliver(_ settlement: Settlement) {
        let listeners: (Listener?, [Listener])? = state.withLock { state in
            guard state.settlement == nil else { return nil }
            state.settlement = settlement
            state.task = nil
            defer {
                state.firstListener = nil
                state.moreListeners = []
            }
            return (state.firstListener, state.moreListeners)
        }
        guard let (first, more) = listeners else { return }
        first?.notify(settlement)
        for listener in more { listener.notify(settlement) }
    }

    func whenSettled(_ body: @escaping @Sendable (Settlement) -> Void) {
        listen(.body(body))
    }

    func whenSettled(resuming waiter: SettlementWaiter) {
        listen(.waiter(waiter))
    }

    func whenSettled(answering id: Int64, of core: SessionCore) {
        listen(.answer(core, id))
    }

    /// Tells `core` when the computation ends, for its count of calls the peer released while
    /// they run; does not count as waiting for the value.
    func whenFinished(counting core: SessionCore) {
        listen(.released(core))
    }

    /// Counts the settled value toward the bytes the peer holds unpulled as export `id` of
    /// `core`; a pull of that export (``whenSettled(answering:of:)``) takes this listener's
    /// place.
    func whenSettled(countingUnpulled id: Int64, of core: SessionCore) {
        listen(.unpulled(core, id))
    }

    /// Registers `listener`, or notifies it at once when the promise has settled.
    private func listen(_ listener: Listener) {
        let settled: Settlement? = state.withLock { state in
            if let settlement = state.settlement { return settlement }
            if case .answer(let core, let id) = listener {
                // Pulled: the result no longer counts as unpulled, and is answered instead.
                if let first = state.firstListener, first.counts(id, of: core) {
                    state.firstListener = listener
                    return nil
                }
                if let index = state.moreListeners.firstIndex(where: { $0.counts(id, of: core) }) {
                    state.moreListeners[index] = listener
                    return nil
                }
            }
            if state.firstListener == nil {
                state.firstListener = listener
            } else {
                state.moreListeners.append(listener)
            }
            return nil
        }
        if let settled { listener.notify(settled) }
    }

    func call(_ path: [CapnWebPathKey], _ arguments: [RpcPayload]) -> any StubHook {
        forward { $0.call(path, arguments) }
    }

    func get(_ path: [CapnWebPathKey]) -> any StubHook {
        if path.isEmpty { return self }
        return forward { $0.get(path) }
    }

    func map(_ path: [CapnWebPathKey], _ recording: MapRecording) -> any StubHook {
        forward { $0.map(path, recording) }
    }

    /// Applies `operation` to the settled value's hook, now or once settled, in order.
    private func forward(_ operation: @escaping @Sendable (any StubHook) -> any StubHook) -> any StubHook {
        if let current {
            return operation(SettledHook.make(current))
        }
        let result = LocalPromiseHook()
        whenSettled { settlement in
            result.adopt(operation(SettledHook.make(settlement)))
        }
        return result
    }
}

/// Turns a settlement into the hook that stands for it.
enum SettledHook {
    /// The hook for a call answered with `value` at once: the value itself, or, when it is a
    /// bare promise stub, a promise that follows it (as ``LocalPromiseHook/resolve(_:)`` does).
    static func resolved(_ value: RpcPayload) -> any StubHook {
        guard let other = LocalPromiseHook.promise(in: value) else { return PayloadHook(value) }
        let promise = LocalPromiseHook()
        promise.adopt(other)
        return promise
    }

    static func make(_ settlement: Settlement) -> any StubHook {
        switch settlement {
        case .success(let value): PayloadHook(value)
        case .failure(let rejection): ErrorHook(rejection)
        }
    }
}
