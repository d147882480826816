/// A local writable stream as the peer sees it: a target with `write`, `close` and `abort`.
final class WritableTarget: RpcTarget {
    let sink: any WritableSink

    init(_ sink: any WritableSink) {
        self.sink = sink
    }

    func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
        switch method {
        case "write":
            try await sink.write(arguments.value(at: 0))
        case "close":
            try await sink.close()
        case "abort":
            await sink.abort(arguments.value(at: 0))
        default:
            throw RpcErrorValue.notAFunction(method)
        }
        return .undefined
    }
}
