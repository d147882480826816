import RpcWire
import Testing

@Suite("RpcFailure")
struct RpcFailureTests {
    @Test("the codes are exactly the sixteen gRPC status codes, in their order")
    func allCodes() {
        #expect(
            RpcFailure.Code.all.map(\.rawValue) == [
                "cancelled", "unknown", "invalidArgument", "deadlineExceeded", "notFound", "alreadyExists",
                "permissionDenied", "resourceExhausted", "failedPrecondition", "aborted", "outOfRange",
                "unimplemented", "internalError", "unavailable", "dataLoss", "unauthenticated",
            ])
    }

    @Test("each code reads back from its raw value and describes itself by it", arguments: RpcFailure.Code.all)
    func codeRoundTrip(code: RpcFailure.Code) {
        #expect(RpcFailure.Code(rawValue: code.rawValue) == code)
        #expect(code.description == code.rawValue)
    }

    @Test("an unknown raw value is no code")
    func unknownRawValue() {
        #expect(RpcFailure.Code(rawValue: "ok") == nil)
        #expect(RpcFailure.Code(rawValue: "Unavailable") == nil)
    }

    @Test("JSON-RPC's reserved codes map to their RpcFailure codes and others to unknown")
    func jsonRPCCodes() {
        #expect(RpcFailure.Code(jsonRPCCode: -32700) == .invalidArgument)
        #expect(RpcFailure.Code(jsonRPCCode: -32600) == .invalidArgument)
        #expect(RpcFailure.Code(jsonRPCCode: -32601) == .unimplemented)
        #expect(RpcFailure.Code(jsonRPCCode: -32602) == .invalidArgument)
        #expect(RpcFailure.Code(jsonRPCCode: -32603) == .internalError)
        #expect(RpcFailure.Code(jsonRPCCode: -32001) == .unknown)
        #expect(RpcFailure.Code(jsonRPCCode: 7) == .unknown)
    }

    @Test("an error nothing knows about is a local unknown failure that keeps the error as its cause")
    func unknownErrorIsLocal() {
        struct Private: Error {}
        let failure = RpcFailure(Private())
        #expect(failure.origin == .local)
        #expect(failure.code == .unknown)
        #expect(failure.cause is Private)
        #expect(RpcFailure(CancellationError()).code == .cancelled)
        #expect(RpcFailure(CancellationError()).origin == .local)
    }

    @Test("a convertible error gives its own failure, and a failure is itself")
    func convertibleError() {
        let wire = WireError(code: .trailingData, message: "extra")
        let failure = RpcFailure(wire)
        #expect(failure.code == .invalidArgument)
        #expect(failure.reason == "trailingData")
        #expect((failure.cause as? WireError) == wire)
        let remote = RpcFailure(code: .notFound, message: "no such thing", origin: .remote)
        #expect(RpcFailure(remote).origin == .remote)
        #expect(remote.description == "notFound (remote): no such thing")
    }

    @Test(
        "each Wire code keeps its stable string and its RpcFailure code",
        arguments: zip(
            WireError.Code.all,
            [
                ("unexpectedEndOfInput", "invalidArgument"), ("unexpectedByte", "invalidArgument"),
                ("invalidNumber", "invalidArgument"), ("numberOutOfRange", "outOfRange"),
                ("invalidEscape", "invalidArgument"), ("loneSurrogate", "invalidArgument"),
                ("invalidUTF8", "invalidArgument"), ("controlCharacter", "invalidArgument"),
                ("trailingData", "invalidArgument"), ("depthLimitExceeded", "resourceExhausted"),
                ("inputTooLarge", "resourceExhausted"), ("duplicateKey", "invalidArgument"),
                ("nonFiniteNumber", "invalidArgument"), ("unknownTag", "invalidArgument"),
                ("wrongArity", "invalidArgument"), ("unescapedArray", "invalidArgument"),
                ("invalidBigInt", "invalidArgument"), ("invalidBase64", "invalidArgument"),
                ("unknownBytesType", "invalidArgument"), ("misalignedBytes", "invalidArgument"),
                ("invalidMessage", "invalidArgument"), ("invalidExpression", "invalidArgument"),
                ("invalidJSONRPC", "invalidArgument"),
            ]))
    func wireCodes(code: WireError.Code, expected: (String, String)) {
        let (raw, mapped) = expected
        #expect(code.rawValue == raw)
        let failure = WireError(code: code, message: "m", path: "/1").rpcFailure
        #expect(failure.code.rawValue == mapped)
        #expect(failure.origin == .local)
        #expect(failure.metadata == ["layer": "wire", "reason": raw, "path": "/1"])
        #expect((failure.cause as? WireError)?.code == code)
    }

    @Test("the Wire table names every code once")
    func wireTableIsComplete() {
        #expect(WireError.Code.all.count == 23)
    }
}
