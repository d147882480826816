import Synchronization
internal import RpcWire

/// A call (or `map`) a ``Ref`` describes but has not sent yet.
///
/// Building a ref sends nothing: the operation leaves when something needs it, that is when it
/// is awaited, when a call that uses it (as an argument, or as the base of a pipelined call)
/// leaves, or when ``Ref/sendNow()`` sends it. Then it is sent once, after whatever it is based
/// on, and every later operation goes to the hook the send returned. A deferred call that is
/// dropped unsent sends nothing.
final class DeferredCallHook: StubHook {
    enum Operation {
        case call([RpcPayload])
        case map(MapRecording)
    }

    private enum State {
        case pending(base: any StubHook, path: [CapnWebPathKey], operation: Operation)
        case sent(any StubHook)
        /// Dropped unsent (only while the hook goes away).
        case dropped
    }

    private let state: Mutex<State>
    /// The batch whose POST sends this call if it is still held then; `nil` outside a batch.
    let batch: BatchCallRegistry?

    init(base: any StubHook, path: [CapnWebPathKey], operation: Operation) {
        let batch: BatchCallRegistry?
        if let deferred = base as? DeferredCallHook {
            batch = deferred.batch
        } else if let main = base as? SessionMainHook {
            batch = main.connection.batchCalls
        } else {
            batch = nil
        }
        self.batch = batch
        self.state = Mutex(.pending(base: base, path: path, operation: operation))
        batch?.register(self)
    }

    deinit {
        // A long chain built and dropped unsent is a linked list of hooks: unlink it here, one
        // link at a time, rather than by nested deinits that could exhaust the stack.
        guard var node = takeBase() as? DeferredCallHook else { return }
        while isKnownUniquelyReferenced(&node) {
            guard let next = node.takeBase() as? DeferredCallHook else { return }
            node = next
        }
    }

    /// Forgets the base of an unsent operation (which will never be sent) and returns it.
    private func takeBase() -> (any StubHook)? {
        state.withLock { state in
            guard case .pending(let base, _, _) = state else { return nil }
            state = .dropped
            return base
        }
    }

    var isPromise: Bool { true }

    /// Whether the operation has not been sent yet.
    var isPending: Bool {
        state.withLock { state in
            if case .pending = state { return true }
            return false
        }
    }

    /// Sends the operation if it has not been sent (first what it is based on, in order), and
    /// returns the hook for its result. With `awaited`, a remote call asks for its result in
    /// the same flush.
    func dispatch(awaited: Bool = false) -> any StubHook {
        // The chain of unsent operations below this one, sent bottom-up so that nothing here
        // recurses once per link.
        var chain: [DeferredCallHook] = []
        var link: DeferredCallHook? = self
        while let current = link, let base = current.pendingBase() {
            chain.append(current)
            link = base as? DeferredCallHook
        }
        guard !chain.isEmpty else { return sentHook() }
        let send = {
            for (offset, hook) in chain.enumerated().reversed() {
                _ = hook.sendOnce(awaited: awaited && offset == 0)
            }
        }
        if chain.count > 1, let core = chain[chain.count - 1].bottomCore() {
            core.holdingFlush(send)
        } else {
            send()
        }
        return sentHook()
    }

    /// The hook that stands for this one's session: the sent hook, or the first hook under the
    /// chain of unsent calls.
    var underlyingHook: any StubHook {
        var hook: any StubHook = self
        while let deferred = hook as? DeferredCallHook {
            let next: (any StubHook)? = deferred.state.withLock { state in
                switch state {
                case .pending(let base, _, _): return base
                case .sent(let sent): return sent
                case .dropped: return nil
                }
            }
            guard let next else { return hook }
            hook = next
        }
        return hook
    }

    /// The base of the operation while it is unsent.
    private func pendingBase() -> (any StubHook)? {
        state.withLock { state in
            if case .pending(let base, _, _) = state { return base }
            return nil
        }
    }

    /// The session engine the bottom of a chain is sent on, when it is a remote one.
    private func bottomCore() -> SessionCore? {
        guard let base = pendingBase() else { return nil }
        if let imported = base as? ImportHook { return imported.core }
        if let main = base as? SessionMainHook { return main.connection.currentCore() }
        return nil
    }

    private func sentHook() -> any StubHook {
        state.withLock { state in
            switch state {
            case .sent(let hook): return hook
            case .pending, .dropped: return ErrorHook(.failed(.invalidResponse("a deferred call was not sent")))
            }
        }
    }

    /// Sends this operation alone (its base must be sent already, or be no deferred call).
    ///
    /// The lock is held while sending, so that two tasks that need the call at once send it
    /// once; sending only reaches hooks made before this one, so it never comes back here.
    private func sendOnce(awaited: Bool) -> any StubHook {
        state.withLock { state in
            guard case .pending(let base, let path, let operation) = state else {
                if case .sent(let hook) = state { return hook }
                return ErrorHook(.failed(.cancelled))
            }
            let hook: any StubHook
            switch operation {
            case .call(let arguments):
                let ready = DeferredCallHook.dispatchingArguments(arguments)
                hook = awaited ? base.callAwaited(path, ready) : base.call(path, ready)
            case .map(var recording):
                recording.captures = recording.captures.map(DeferredCallHook.dispatching)
                hook = base.map(path, recording)
            }
            state = .sent(hook)
            return hook
        }
    }

    /// Sends the deferred calls among `arguments`, and returns the arguments with their sent
    /// hooks in place, so that a ref passed as an argument is sent with (just before) the call
    /// that uses it and travels as a pipeline reference.
    static func dispatchingArguments(_ arguments: [RpcPayload]) -> [RpcPayload] {
        guard arguments.contains(where: holdsDeferred) else { return arguments }
        return arguments.map(dispatching)
    }

    /// Whether `payload` holds a deferred call (in arrays and objects, where refs go).
    private static func holdsDeferred(_ payload: RpcPayload) -> Bool {
        switch payload {
        case .stub(let stub): return stub.hook is DeferredCallHook
        case .array(let elements): return elements.contains(where: holdsDeferred)
        case .object(let members): return members.contains { holdsDeferred($0.value) }
        default: return false
        }
    }

    private static func dispatching(_ payload: RpcPayload) -> RpcPayload {
        switch payload {
        case .stub(let stub): return .stub(dispatching(stub))
        case .array(let elements): return .array(elements.map(dispatching))
        case .object(let members):
            return .object(members.map { RpcPayload.Member($0.key, dispatching($0.value)) })
        default: return payload
        }
    }

    private static func dispatching(_ stub: RpcStub) -> RpcStub {
        guard let deferred = stub.hook as? DeferredCallHook else { return stub }
        return RpcStub(hook: deferred.dispatch(), path: stub.path, awaitsDelivery: stub.awaitsDelivery)
    }

    // MARK: StubHook

    func call(_ path: [CapnWebPathKey], _ arguments: [RpcPayload]) -> any StubHook {
        dispatch().call(path, arguments)
    }

    func callAwaited(_ path: [CapnWebPathKey], _ arguments: [RpcPayload]) -> any StubHook {
        dispatch().callAwaited(path, arguments)
    }

    func get(_ path: [CapnWebPathKey]) -> any StubHook {
        if path.isEmpty { return self }
        return dispatch().get(path)
    }

    func map(_ path: [CapnWebPathKey], _ recording: MapRecording) -> any StubHook {
        dispatch().map(path, recording)
    }

    func whenSettled(_ body: @escaping @Sendable (Settlement) -> Void) {
        dispatch(awaited: true).whenSettled(body)
    }

    func whenSettled(resuming waiter: SettlementWaiter) {
        dispatch(awaited: true).whenSettled(resuming: waiter)
    }

    func whenSettled(answering id: Int64, of core: SessionCore) {
        dispatch(awaited: true).whenSettled(answering: id, of: core)
    }
}
