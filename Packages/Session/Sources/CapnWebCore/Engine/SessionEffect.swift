internal import RpcWire

/// Work a state transition of ``SessionCore`` asks for but must not do itself: each transition
/// runs under the session's mutex and only changes the tables and the outbox, so anything that
/// may run application code, take another lock or resume a task is returned as an effect and
/// performed by ``SessionCore/perform(_:)`` once the mutex is released, in the order returned.
///
/// Effects are values rather than closures: collecting them allocates nothing beyond the array
/// that holds them (none when a transition has none, as on the hot path of a plain call), and
/// what a transition asks for can be read and tested.
enum SessionEffect: Sendable {
    /// Settles `placeholder` like `path` read from `base`: a stub sent with a path becomes an
    /// export of a promise for that member.
    case adopt(placeholder: LocalPromiseHook, base: any StubHook, path: [CapnWebPathKey])
    /// Sends the answer to export `exportID` once `hook` settles: a promise this side exported.
    case answer(exportID: Int64, when: any StubHook)
    /// Copies a local readable stream into a pipe the peer reads.
    case pump(RpcReadableStream, into: ImportHook)
    /// Settles a local promise: the answer of one of our imports, or the failure of a pull the
    /// session can no longer send.
    case settle(LocalPromiseHook, Settlement)
    /// Resumes the tasks waiting in ``SessionCore/drain()``: nothing is left to answer.
    case resumeIdle([CheckedContinuation<Void, Never>])
}

extension SessionCore {
    /// Performs `effects` in order; called with the mutex released.
    func perform(_ effects: [SessionEffect]) {
        for effect in effects { perform(effect) }
    }

    /// Performs one effect; called with the mutex released.
    func perform(_ effect: SessionEffect) {
        switch effect {
        case .adopt(let placeholder, let base, let path):
            placeholder.adopt(base.get(path))
        case .answer(let exportID, let hook):
            hook.whenSettled(answering: exportID, of: self)
        case .pump(let readable, let pipe):
            pump(readable, into: pipe)
        case .settle(let promise, let settlement):
            promise.settle(settlement)
        case .resumeIdle(let waiters):
            for waiter in waiters { waiter.resume() }
        }
    }
}
