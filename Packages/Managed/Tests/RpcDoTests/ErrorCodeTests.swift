import CapnWeb
import RpcDo
import Testing

@Suite("Error codes as RpcFailure")
struct ErrorCodeTests {
    /// One value of every RpcDo error case, its stable reason, its RpcFailure code and origin.
    static let rpcDoTable: [(RpcDo.RpcError, String, String, RpcFailure.Origin)] = [
        (.remote(type: "Error", message: "m"), "remote", "unknown", .remote),
        (.remote(type: "TypeError", message: "m"), "remote", "invalidArgument", .remote),
        (.connectionLost("gone"), "connectionLost", "unavailable", .local),
        (.connectionLost(nil), "connectionLost", "unavailable", .local),
        (.timeout, "timeout", "deadlineExceeded", .local),
        (.cancelled, "cancelled", "cancelled", .local),
        (.invalidResponse("m"), "invalidResponse", "internalError", .local),
        (.invalidArgument("m"), "invalidArgument", "invalidArgument", .local),
        (.notFound("m"), "notFound", "notFound", .remote),
        (.notImplemented("m"), "notImplemented", "unimplemented", .remote),
        (.authenticationFailed("m"), "authenticationFailed", "unauthenticated", .remote),
        (.rateLimitExceeded(retryAfter: 2), "rateLimitExceeded", "resourceExhausted", .remote),
    ]

    @Test("each RpcDo error case keeps its reason, its RpcFailure code and its origin", arguments: rpcDoTable)
    func rpcDoCases(error: RpcDo.RpcError, reason: String, code: String, origin: RpcFailure.Origin) {
        let failure = error.rpcFailure
        #expect(failure.metadata["layer"] == "rpcdo")
        #expect(failure.reason == reason)
        #expect(failure.code.rawValue == code)
        #expect(failure.origin == origin)
        #expect(failure.cause as? RpcDo.RpcError == error)
    }

    @Test("the RpcDo table holds every case")
    func rpcDoTableIsComplete() {
        // Exhaustive: a new case does not compile until it has a row above.
        func row(_ error: RpcDo.RpcError) -> Int {
            switch error {
            case .remote: 0
            case .connectionLost: 2
            case .timeout: 4
            case .cancelled: 5
            case .invalidResponse: 6
            case .invalidArgument: 7
            case .notFound: 8
            case .notImplemented: 9
            case .authenticationFailed: 10
            case .rateLimitExceeded: 11
            }
        }
        for (index, entry) in Self.rpcDoTable.enumerated() {
            #expect(row(entry.0) <= index)
        }
        #expect(Set(Self.rpcDoTable.map { row($0.0) }).count == 10)
        #expect(RpcDo.RpcError.rateLimitExceeded(retryAfter: 2).rpcFailure.metadata["retryAfter"] == "2.0")
    }

    /// Every managed connection code in declaration order, its stable name and its RpcFailure
    /// code (without a peer's error object).
    static let managedTable: [(String, String)] = [
        ("notConnected", "unavailable"), ("offlineQueueFull", "resourceExhausted"), ("timeout", "deadlineExceeded"),
        ("connectionLost", "unavailable"), ("closed", "unavailable"), ("cancelled", "cancelled"),
        ("remote", "internalError"), ("invalidRequest", "invalidArgument"),
    ]

    @Test("each managed connection code keeps its name and its RpcFailure code", arguments: zip(ManagedConnectionError.Code.all, managedTable))
    func managedCodes(code: ManagedConnectionError.Code, expected: (String, String)) {
        let (name, mapped) = expected
        #expect(code.name == name)
        #expect("\(code)" == name)
        let failure = ManagedConnectionError(code, "m").rpcFailure
        #expect(failure.code.rawValue == mapped)
        #expect(failure.origin == .local)
        #expect(failure.metadata == ["layer": "managed", "reason": name])
        #expect((failure.cause as? ManagedConnectionError)?.code == code)
    }

    @Test("the managed table names every code")
    func managedTableIsComplete() {
        #expect(ManagedConnectionError.Code.all.map(\.name) == Self.managedTable.map(\.0))
    }

    @Test("a peer's JSON-RPC error is remote, with the code its JSON-RPC code stands for")
    func managedRemote() {
        let failure = ManagedConnectionError(.remote, "no", remote: JSONRPCErrorObject(code: -32601, message: "no")).rpcFailure
        #expect(failure.origin == .remote)
        #expect(failure.code == .unimplemented)
        #expect(failure.metadata["jsonrpcCode"] == "-32601")
    }
}
