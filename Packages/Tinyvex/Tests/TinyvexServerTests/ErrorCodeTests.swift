import RpcDo
import Testing
import TinyvexProtocol
import TinyvexServer

@Suite("Tinyvex error codes as RpcFailure")
struct ErrorCodeTests {
    /// Every Tinyvex code in declaration order: its wire string, JSON-RPC code, name and
    /// RpcFailure code.
    static let table: [(String, Int, String, String)] = [
        ("TVX001", -32001, "SubscriptionNotFound", "notFound"),
        ("TVX002", -32002, "SubscriptionRejected", "failedPrecondition"),
        ("TVX003", -32003, "MutationFailed", "aborted"),
        ("TVX004", -32004, "ResumeFailed", "outOfRange"),
        ("TVX005", -32005, "BackpressureDrop", "resourceExhausted"),
        ("TVX006", -32006, "Unauthorized", "unauthenticated"),
        ("TVX007", -32007, "Timeout", "deadlineExceeded"),
    ]

    @Test("the table names every Tinyvex code once, in declaration order")
    func tableIsComplete() {
        #expect(TinyvexErrorCode.allCases.map(\.rawValue) == Self.table.map(\.0))
    }

    @Test("each Tinyvex code keeps its wire string, JSON-RPC code, name and RpcFailure code", arguments: zip(TinyvexErrorCode.allCases, table))
    func codes(code: TinyvexErrorCode, expected: (String, Int, String, String)) {
        let (raw, jsonRPCCode, name, mapped) = expected
        #expect(code.rawValue == raw)
        #expect(code.jsonRPCCode == jsonRPCCode)
        #expect(code.name == name)
        #expect(code.rpcFailureCode.rawValue == mapped)
        let failure = TinyvexServerError(code, "m").rpcFailure
        #expect(failure.code.rawValue == mapped)
        #expect(failure.origin == .local)
        #expect(failure.metadata == ["layer": "tinyvex-server", "reason": raw, "name": name])
        #expect((failure.cause as? TinyvexServerError)?.code == code)
    }
}
