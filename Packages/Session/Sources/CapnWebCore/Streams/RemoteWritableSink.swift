import Synchronization
internal import RpcWire

/// A writable stream the peer handed us: each write is a `stream` message; up to the session's
/// stream window of writes may be unacknowledged at once.
final class RemoteWritableSink: WritableSink {
    let hook: ImportHook
    private let inFlight = Mutex<[any StubHook]>([])

    init(hook: ImportHook) {
        self.hook = hook
    }

    func write(_ chunk: RpcPayload) async throws {
        let write = hook.core.sendStream(.call(target: hook, path: ["write"], arguments: [chunk]))
        let oldest: (any StubHook)? = inFlight.withLock { pending in
            pending.append(write)
            return pending.count > max(1, hook.core.limits.streamWindow) ? pending.removeFirst() : nil
        }
        if let oldest, case .failure(let rejection) = await oldest.settled() {
            throw rejection.rpcError
        }
    }

    func close() async throws {
        let close = hook.core.sendStream(.call(target: hook, path: ["close"], arguments: []))
        let pending = inFlight.withLock { pending in
            defer { pending.removeAll() }
            return pending
        }
        for write in pending + [close] {
            if case .failure(let rejection) = await write.settled() {
                throw rejection.rpcError
            }
        }
    }

    func abort(_ reason: RpcPayload) async {
        _ = hook.core.sendStream(.call(target: hook, path: ["abort"], arguments: [reason]))
    }
}
