import RpcWire
import Testing

@Suite("JSON-RPC 2.0 codec")
struct JSONRPCCodecTests {
    let codec = JSONRPCCodec()

    private func decode(_ text: String) throws(WireError) -> JSONRPCPacket {
        try codec.decode(Array(text.utf8))
    }

    private func text(_ packet: JSONRPCPacket) throws -> String {
        String(decoding: try codec.encode(packet), as: UTF8.self)
    }

    @Test("decodes a request with positional params and re-encodes it in the fixed member order")
    func requestRoundTrip() throws {
        let packet = try decode(#"{"method":"subtract","params":[42,23],"id":1,"jsonrpc":"2.0"}"#)
        #expect(packet == .single(.request(id: 1, method: "subtract", params: .positional([42, 23]))))
        #expect(try text(packet) == #"{"jsonrpc":"2.0","id":1,"method":"subtract","params":[42,23]}"#)
    }

    @Test("decodes named params, string ids and requests without params")
    func namedParamsAndStringIDs() throws {
        let named = try decode(#"{"jsonrpc":"2.0","method":"sub","params":{"minuend":42,"subtrahend":23},"id":"abc"}"#)
        #expect(named == .single(.request(id: "abc", method: "sub", params: .named(["minuend": 42, "subtrahend": 23]))))
        let bare = try decode(#"{"jsonrpc":"2.0","method":"ping","id":null}"#)
        #expect(bare == .single(.request(id: .null, method: "ping", params: nil)))
    }

    @Test("a message without an id member is a notification")
    func notification() throws {
        let packet = try decode(#"{"jsonrpc":"2.0","method":"update","params":[1,2,3]}"#)
        #expect(packet == .single(.notification(method: "update", params: .positional([1, 2, 3]))))
        #expect(packet.messages.first?.id == nil)
        #expect(try text(packet) == #"{"jsonrpc":"2.0","method":"update","params":[1,2,3]}"#)
    }

    @Test("decodes success and error responses, keeping error data")
    func responses() throws {
        let success = try decode(#"{"jsonrpc":"2.0","result":19,"id":1}"#)
        #expect(success == .single(.success(id: 1, result: 19)))
        let failure = try decode(#"{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found","data":"foo"},"id":"1"}"#)
        #expect(failure == .single(.failure(id: "1", error: .methodNotFound("foo"))))
        #expect(try text(failure) == #"{"jsonrpc":"2.0","id":"1","error":{"code":-32601,"message":"Method not found","data":"foo"}}"#)
    }

    @Test("decodes a batch in order and encodes it back as an array")
    func batch() throws {
        let packet = try decode(
            #"[{"jsonrpc":"2.0","method":"sum","params":[1,2,4],"id":"1"},{"jsonrpc":"2.0","method":"notify_hello","params":[7]}]"#
        )
        #expect(
            packet
                == .batch([
                    .request(id: "1", method: "sum", params: .positional([1, 2, 4])),
                    .notification(method: "notify_hello", params: .positional([7])),
                ])
        )
        #expect(try text(packet).hasPrefix(#"[{"jsonrpc":"2.0","id":"1","method":"sum""#))
    }

    @Test("the standard error codes have the values of the specification")
    func standardCodes() {
        #expect(JSONRPCErrorObject.parseError().code == -32700)
        #expect(JSONRPCErrorObject.invalidRequest().code == -32600)
        #expect(JSONRPCErrorObject.methodNotFound("x").code == -32601)
        #expect(JSONRPCErrorObject.invalidParams().code == -32602)
        #expect(JSONRPCErrorObject.internalError().code == -32603)
        #expect(JSONRPCErrorObject.serverErrorCodes.contains(-32000))
        #expect(!JSONRPCErrorObject.serverErrorCodes.contains(-32100))
    }

    @Test(
        "invalid messages are rejected with invalidJSONRPC naming the offending member",
        arguments: [
            (#"{"jsonrpc":"1.0","method":"a","id":1}"#, "/jsonrpc"),
            (#"{"method":"a","id":1}"#, "/jsonrpc"),
            (#"{"jsonrpc":"2.0","method":1,"id":1}"#, "/method"),
            (#"{"jsonrpc":"2.0","method":"a","params":"x","id":1}"#, "/params"),
            (#"{"jsonrpc":"2.0","method":"a","id":{}}"#, "/id"),
            (#"{"jsonrpc":"2.0","method":"a","id":1.5}"#, "/id"),
            (#"{"jsonrpc":"2.0","result":1}"#, "/"),
            (#"{"jsonrpc":"2.0","id":1}"#, "/"),
            (#"{"jsonrpc":"2.0","id":1,"result":1,"error":{"code":1,"message":"m"}}"#, "/"),
            (#"{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"m"}}"#, "/error/code"),
            (#"{"jsonrpc":"2.0","id":1,"error":{"code":1}}"#, "/error/message"),
            (#"[]"#, "/"),
            (#"[1]"#, "/0"),
            (#"[{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","method":"a","params":3}]"#, "/1/params"),
            (#"42"#, "/"),
        ]
    )
    func invalidMessages(text: String, pointer: String) {
        #expect {
            try decode(text)
        } throws: { error in
            guard let error = error as? WireError else { return false }
            return error.code == .invalidJSONRPC && error.path == pointer
        }
    }

    @Test("decodeEach keeps valid batch elements and reports invalid ones separately")
    func decodeEachBatch() throws {
        let value = try JSONValue(parsing: #"[{"jsonrpc":"2.0","method":"sum","params":[1],"id":1},{"foo":"boo"},1]"#)
        let results = try codec.decodeEach(value)
        #expect(results.count == 3)
        #expect(try results[0].get() == .request(id: 1, method: "sum", params: .positional([1])))
        for result in results.dropFirst() {
            guard case .failure(let error) = result else {
                Issue.record("expected a failure, got \(result)")
                continue
            }
            #expect(error.code == .invalidJSONRPC)
            #expect(codec.errorResponse(for: error).id == .null)
        }
    }

    @Test("text that is not JSON maps to a parse error response, a bad message to invalid request")
    func errorResponses() throws {
        var parseFailure: WireError?
        do {
            _ = try decode(#"{"jsonrpc":"2.0","method":"foobar,"params":"bar","baz]"#)
        } catch {
            parseFailure = error
        }
        let parse = try #require(parseFailure)
        #expect(parse.code != .invalidJSONRPC)
        guard case .failure(_, let parseError) = codec.errorResponse(for: parse) else {
            Issue.record("expected a failure response")
            return
        }
        #expect(parseError.code == JSONRPCErrorObject.parseErrorCode)

        let invalid = WireError(code: .invalidJSONRPC, message: "bad", path: "/")
        guard case .failure(let id, let invalidError) = codec.errorResponse(for: invalid, id: 7) else {
            Issue.record("expected a failure response")
            return
        }
        #expect(id == 7)
        #expect(invalidError.code == JSONRPCErrorObject.invalidRequestCode)
    }
}
