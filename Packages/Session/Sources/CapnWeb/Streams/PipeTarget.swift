/// The writable end of a pipe the peer opened: its writes feed the readable end this side reads.
final class PipeTarget: RpcTarget {
    private let continuation: AsyncThrowingStream<RpcPayload, any Error>.Continuation

    init(_ continuation: AsyncThrowingStream<RpcPayload, any Error>.Continuation) {
        self.continuation = continuation
    }

    func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
        switch method {
        case "write":
            continuation.yield(arguments.value(at: 0))
        case "close":
            continuation.finish()
        case "abort":
            continuation.finish(throwing: Rejection.thrown(arguments.value(at: 0)).rpcError)
        default:
            throw RpcErrorValue.notAFunction(method)
        }
        return .undefined
    }

    func dispose() {
        continuation.finish(throwing: RpcError.connectionLost(RpcErrorValue(message: "the writer went away")))
    }
}
