@testable import RpcDo
import Testing

@Suite("The retry rule")
struct RetryRuleTests {
    @Test("only transient errors of calls that are safe to repeat are retried", arguments: [
        // error, sent, idempotent, single call, retried
        (RpcError.timeout, false, false, false, true),
        (RpcError.connectionLost(nil), false, false, false, true),
        (RpcError.timeout, true, false, true, false),
        (RpcError.connectionLost("lost"), true, false, true, false),
        (RpcError.connectionLost("lost"), true, true, false, true),
        (RpcError.timeout, true, true, false, true),
        (RpcError.rateLimitExceeded(retryAfter: 1), true, false, true, true),
        (RpcError.rateLimitExceeded(retryAfter: nil), true, false, false, false),
        (RpcError.rateLimitExceeded(retryAfter: nil), true, true, false, true),
        (RpcError.notFound("x"), false, true, true, false),
        (RpcError.remote(type: "Error", message: "x"), false, true, true, false),
        (RpcError.cancelled, false, true, true, false),
    ])
    func rule(error: RpcError, sent: Bool, idempotent: Bool, singleCall: Bool, retried: Bool) {
        #expect(ClientCore.isSafeToRepeat(error, sent: sent, idempotent: idempotent, singleCall: singleCall) == retried)
    }
}
