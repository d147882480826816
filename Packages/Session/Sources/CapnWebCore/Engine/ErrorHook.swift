internal import RpcWire

/// A broken reference: every operation fails with the same rejection.
final class ErrorHook: StubHook {
    let rejection: Rejection

    init(_ rejection: Rejection) {
        self.rejection = rejection
    }

    var isPromise: Bool { true }

    var heldResult: HeldResult? { .settled(.failure(rejection)) }

    func call(_ path: [CapnWebPathKey], _ arguments: [RpcPayload]) -> any StubHook { self }
    func get(_ path: [CapnWebPathKey]) -> any StubHook { self }
    func map(_ path: [CapnWebPathKey], _ recording: MapRecording) -> any StubHook { self }

    func whenSettled(_ body: @escaping @Sendable (Settlement) -> Void) {
        body(.failure(rejection))
    }

    func whenSettled(resuming waiter: SettlementWaiter) {
        waiter.resume(.failure(rejection))
    }

    func whenSettled(answering id: Int64, of core: SessionCore) {
        core.answer(id, .failure(rejection))
    }
}
