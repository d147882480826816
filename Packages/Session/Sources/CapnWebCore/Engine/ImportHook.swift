internal import RpcWire

/// An entry of the peer's that this side holds: a push result (a promise), a promise the peer
/// exported, or a stub the peer exported.
///
/// While a promise is unresolved, calls and property reads on it go to the peer, pipelined.
/// Once its resolution has arrived they go to the resolution, in the order they were made.
/// When the last Swift reference to the hook goes away the peer is told to release the entry.
final class ImportHook: StubHook {
    let core: SessionCore
    let id: Int64
    let isPromise: Bool
    /// Settled with the resolution; for a promise only.
    let resolution = LocalPromiseHook()

    init(core: SessionCore, id: Int64, isPromise: Bool) {
        self.core = core
        self.id = id
        self.isPromise = isPromise
    }

    deinit {
        // A settled promise has left the table already (its answer removed the entry and sent
        // the release, or the session ended): nothing is left to drop.
        if isPromise, resolution.current != nil { return }
        core.importDropped(id: id, hook: ObjectIdentifier(self))
    }

    func whenSettled(_ body: @escaping @Sendable (Settlement) -> Void) {
        guard isPromise else {
            body(.success(.stub(RpcStub(hook: self))))
            return
        }
        // The listener holds the hook until the answer comes: a listener is often all that is
        // left of a promise (one a target returned, forwarded), and dropping the hook would
        // release the entry, and with it the answer.
        resolution.whenSettled { [self] settlement in
            withExtendedLifetime(self) { body(settlement) }
        }
        core.pull(self)
    }

    func whenSettled(resuming waiter: SettlementWaiter) {
        guard isPromise else {
            waiter.resume(.success(.stub(RpcStub(hook: self))))
            return
        }
        resolution.whenSettled(resuming: waiter)
        core.pull(self)
    }

    func call(_ path: [CapnWebPathKey], _ arguments: [RpcPayload]) -> any StubHook {
        core.push(.call(target: self, path: path, arguments: arguments))
    }

    func callAwaited(_ path: [CapnWebPathKey], _ arguments: [RpcPayload]) -> any StubHook {
        core.push(.call(target: self, path: path, arguments: arguments), pulled: true)
    }

    func get(_ path: [CapnWebPathKey]) -> any StubHook {
        if path.isEmpty { return self }
        return core.push(.get(target: self, path: path))
    }

    func map(_ path: [CapnWebPathKey], _ recording: MapRecording) -> any StubHook {
        core.push(.map(target: self, path: path, recording: recording))
    }
}
