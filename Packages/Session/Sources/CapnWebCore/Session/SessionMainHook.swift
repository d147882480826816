internal import RpcWire

/// The session's `api`: the peer's main object on whichever connection is current, so that
/// `session.api` keeps working after a reconnect.
final class SessionMainHook: StubHook {
    let connection: SessionConnection

    init(connection: SessionConnection) {
        self.connection = connection
    }

    var isPromise: Bool { false }

    /// The main import of the current connection, or a broken hook when there is none.
    func current() -> any StubHook {
        if let core = connection.currentCore() { return core.mainImport() }
        if connection.batchCalls != nil { return ErrorHook(.failed(BatchCallRegistry.lateCall)) }
        return ErrorHook(.failed(.connectionLost(connection.lastError)))
    }

    func call(_ path: [CapnWebPathKey], _ arguments: [RpcPayload]) -> any StubHook {
        current().call(path, arguments)
    }

    func callAwaited(_ path: [CapnWebPathKey], _ arguments: [RpcPayload]) -> any StubHook {
        current().callAwaited(path, arguments)
    }

    func get(_ path: [CapnWebPathKey]) -> any StubHook {
        if path.isEmpty { return self }
        return current().get(path)
    }

    func map(_ path: [CapnWebPathKey], _ recording: MapRecording) -> any StubHook {
        current().map(path, recording)
    }

    func whenSettled(_ body: @escaping @Sendable (Settlement) -> Void) {
        body(.success(.stub(RpcStub(hook: self))))
    }

    func onBroken(_ handler: @escaping @Sendable (RpcError) -> Void) {
        if let core = connection.currentCore() {
            core.onBroken(handler)
        } else {
            handler(.connectionLost(connection.lastError))
        }
    }
}
