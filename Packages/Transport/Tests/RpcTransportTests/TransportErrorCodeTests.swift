import RpcTransport
import Testing

@Suite("Transport error codes as RpcFailure")
struct TransportErrorCodeTests {
    /// Every Transport code in declaration order, its stable string and its RpcFailure code
    /// (without an HTTP status).
    static let table: [(String, String)] = [
        ("invalidTarget", "invalidArgument"), ("connectFailed", "unavailable"),
        ("connectTimeout", "deadlineExceeded"), ("handshakeFailed", "unavailable"),
        ("handshakeTimeout", "deadlineExceeded"), ("upgradeRejected", "unavailable"),
        ("tlsHandshakeFailed", "unavailable"), ("certificateUntrusted", "failedPrecondition"),
        ("certificateExpired", "failedPrecondition"), ("hostnameMismatch", "failedPrecondition"),
        ("pinMismatch", "failedPrecondition"), ("tlsConfigurationInvalid", "invalidArgument"),
        ("closed", "unavailable"), ("protocolViolation", "internalError"),
        ("messageTooLarge", "resourceExhausted"), ("invalidUTF8", "internalError"),
        ("keepaliveTimeout", "unavailable"), ("readTimeout", "deadlineExceeded"),
        ("peerNotReading", "resourceExhausted"), ("httpStatus", "unknown"),
        ("requestTooLarge", "resourceExhausted"), ("cancelled", "cancelled"),
        ("ioError", "unavailable"), ("serverShutdown", "unavailable"),
        ("notConnected", "unavailable"), ("offlineQueueFull", "resourceExhausted"),
    ]

    @Test("the table names every Transport code once, in declaration order")
    func tableIsComplete() {
        #expect(TransportError.Code.all.map(\.rawValue) == Self.table.map(\.0))
    }

    @Test("each Transport code keeps its stable string and its RpcFailure code", arguments: zip(TransportError.Code.all, table))
    func codes(code: TransportError.Code, expected: (String, String)) {
        let (raw, mapped) = expected
        #expect(code.rawValue == raw)
        let failure = TransportError(code: code, message: "m").rpcFailure
        #expect(failure.code.rawValue == mapped)
        #expect(failure.origin == .local)
        #expect(failure.metadata == ["layer": "transport", "reason": raw])
        #expect((failure.cause as? TransportError)?.code == code)
    }

    @Test("an HTTP status refines upgradeRejected and httpStatus")
    func httpStatuses() {
        let rejected = TransportError(code: .upgradeRejected, message: "no", httpStatus: 401).rpcFailure
        #expect(rejected.code == .unauthenticated)
        #expect(rejected.metadata["httpStatus"] == "401")
        #expect(TransportError.Code.upgradeRejected.rpcFailureCode(httpStatus: 403) == .permissionDenied)
        #expect(TransportError.Code.upgradeRejected.rpcFailureCode(httpStatus: 418) == .unavailable)
        #expect(TransportError.Code.httpStatus.rpcFailureCode(httpStatus: 404) == .notFound)
        #expect(TransportError.Code.httpStatus.rpcFailureCode(httpStatus: 503) == .unavailable)
        #expect(TransportError.Code.httpStatus.rpcFailureCode(httpStatus: 500) == .unknown)
        #expect(TransportError.Code.closed.rpcFailureCode(httpStatus: 404) == .unavailable)
    }

    @Test("the cause chain is kept: the failure's cause is the TransportError, whose cause is the original")
    func causeChain() {
        struct SocketFailure: Error {}
        let failure = TransportError(code: .ioError, message: "reset", closeCode: .abnormal, cause: SocketFailure()).rpcFailure
        let transport = failure.cause as? TransportError
        #expect(transport?.cause is SocketFailure)
        #expect(failure.metadata["closeCode"] == String(CloseCode.abnormal.rawValue))
    }
}
