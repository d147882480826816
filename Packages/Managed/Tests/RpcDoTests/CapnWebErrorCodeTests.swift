import CapnWeb
import Testing

/// The Cap'n Web layer's table, pinned here: RpcDo is the first package above it.
@Suite("Cap'n Web error codes as RpcFailure")
struct CapnWebErrorCodeTests {
    /// One value of every Cap'n Web error case, its stable reason, its RpcFailure code and origin.
    static let table: [(CapnWeb.RpcError, String, String, RpcFailure.Origin)] = [
        (.remote(type: "Error", message: "m"), "remote", "unknown", .remote),
        (.remote(type: "NotFound", message: "m"), "remote", "notFound", .remote),
        (.remote(type: "NotFoundError", message: "m"), "remote", "notFound", .remote),
        (.remote(type: "NotImplemented", message: "m"), "remote", "unimplemented", .remote),
        (.remote(type: "NotImplementedError", message: "m"), "remote", "unimplemented", .remote),
        (.remote(type: "Unauthenticated", message: "m"), "remote", "unauthenticated", .remote),
        (.remote(type: "AuthenticationError", message: "m"), "remote", "unauthenticated", .remote),
        (.remote(type: "RateLimitExceeded", message: "m"), "remote", "resourceExhausted", .remote),
        (.remote(type: "RateLimitError", message: "m"), "remote", "resourceExhausted", .remote),
        (.remote(type: "TypeError", message: "m"), "remote", "invalidArgument", .remote),
        (.remote(type: "RangeError", message: "m"), "remote", "outOfRange", .remote),
        (.connectionLost(nil), "connectionLost", "unavailable", .local),
        (.connectionLost(TransportError(code: .closed, message: "m")), "connectionLost", "unavailable", .local),
        (.connectionLost(TransportError(code: .invalidTarget, message: "m")), "connectionLost", "invalidArgument", .local),
        (.connectionLost(TransportError(code: .connectTimeout, message: "m")), "connectionLost", "deadlineExceeded", .local),
        (.connectionLost(RpcErrorValue(message: "aborted")), "connectionLost", "unavailable", .remote),
        (.timeout, "timeout", "deadlineExceeded", .local),
        (.cancelled, "cancelled", "cancelled", .local),
        (.invalidResponse("m"), "invalidResponse", "internalError", .local),
    ]

    @Test("each Cap'n Web error case keeps its reason, its RpcFailure code and its origin", arguments: table)
    func cases(error: CapnWeb.RpcError, reason: String, code: String, origin: RpcFailure.Origin) {
        let failure = error.rpcFailure
        #expect(failure.metadata["layer"] == "capnweb")
        #expect(failure.reason == reason)
        #expect(failure.code.rawValue == code)
        #expect(failure.origin == origin)
        #expect(failure.cause is CapnWeb.RpcError)
    }

    @Test("the table holds every case")
    func tableIsComplete() {
        // Exhaustive: a new case does not compile until it has a name here.
        func name(_ error: CapnWeb.RpcError) -> String {
            switch error {
            case .remote: "remote"
            case .connectionLost: "connectionLost"
            case .timeout: "timeout"
            case .cancelled: "cancelled"
            case .invalidResponse: "invalidResponse"
            }
        }
        #expect(Set(Self.table.map { name($0.0) }).count == 5)
        for entry in Self.table {
            #expect(name(entry.0) == entry.1)
        }
    }

    @Test("a rejection value is remote, by its name, and keeps its properties in the cause")
    func rejectionValue() {
        let value = RpcErrorValue(name: "NotFound", message: "no todo 7", properties: [.init("id", 7)])
        let failure = value.rpcFailure
        #expect(failure.origin == .remote)
        #expect(failure.code == .notFound)
        #expect(failure.metadata == ["layer": "capnweb", "reason": "remote", "type": "NotFound"])
        guard case .integer(7)? = (failure.cause as? RpcErrorValue)?.property("id") else {
            Issue.record("the cause lost the property: \(String(describing: failure.cause))")
            return
        }
    }

    @Test("the lost connection's transport error stays reachable through the cause")
    func causeChain() {
        let failure = CapnWeb.RpcError.connectionLost(TransportError(code: .ioError, message: "reset")).rpcFailure
        guard case .connectionLost(let underlying as TransportError)? = failure.cause as? CapnWeb.RpcError else {
            Issue.record("the cause is \(String(describing: failure.cause))")
            return
        }
        #expect(underlying.code == .ioError)
    }
}
