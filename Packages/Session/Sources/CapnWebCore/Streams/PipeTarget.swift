/// The writable end of a pipe the peer opened: its writes feed the readable end this side reads.
final class PipeTarget: RpcTarget {
    private let continuation: AsyncThrowingStream<RpcPayload, any Error>.Continuation

    init(_ continuation: AsyncThrowingStream<RpcPayload, any Error>.Continuation) {
        self.continuation = continuation
    }

    func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
        switch method {
        case "write":
            // A reader that stopped (its task was cancelled, or it stopped iterating) ends the
            // stream; the writer learns it from the rejected write and stops producing.
            if case .terminated = continuation.yield(arguments.value(at: 0)) {
                throw RpcErrorValue(name: "AbortError", message: "the reader of the stream went away")
            }
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
