import RivetKit
import Testing
import RpcWire

@Suite("RivetKit JSON protocol codec")
struct ProtocolCodecTests {
    @Test("Every frame RivetKit's client sent in the transcripts decodes, and encodes back to the same text", arguments: RivetTranscript.runs)
    func clientFrames(run: String) throws {
        let frames = try RivetTranscript.load(run).entries("ws_recv").compactMap { $0.string("frame") }
        #expect(!frames.isEmpty)
        for frame in frames {
            let message = try RivetMessageCodec.decodeClientMessage(frame)
            #expect(RivetMessageCodec.encode(message) == frame)
        }
    }

    @Test("Every frame the accepted server sent in the transcripts decodes, and encodes back to the same text", arguments: RivetTranscript.runs)
    func serverFrames(run: String) throws {
        let frames = try RivetTranscript.load(run).entries("ws_send").compactMap { $0.string("frame") }
        #expect(frames.count >= 4)
        for frame in frames {
            let message = try RivetMessageCodec.decodeServerMessage(frame)
            #expect(RivetMessageCodec.encode(message) == frame)
        }
    }

    @Test("The transcript frames decode to the messages they name")
    func decodedShapes() throws {
        let transcript = try RivetTranscript.load("default")
        let received = try transcript.entries("ws_recv").compactMap { $0.string("frame") }.map(RivetMessageCodec.decodeClientMessage)
        #expect(
            received == [
                .subscriptionRequest(eventName: "newCount", subscribe: true),
                .actionRequest(id: 0, name: "increment", args: [5]),
                .actionRequest(id: 1, name: "fail", args: []),
            ])
        let sent = try transcript.entries("ws_send").compactMap { $0.string("frame") }.map(RivetMessageCodec.decodeServerMessage)
        #expect(
            sent == [
                .initialize(actorId: "actor0000000000000000000000counter_k1", connectionId: "conn_1"),
                .event(name: "newCount", args: [10]),
                .actionResponse(id: 0, output: 10),
                .error(
                    ActorError(group: "user", code: "test_error", message: "boom", metadata: ["why": "asked to fail"]),
                    actionId: 1),
            ])
    }

    @Test("Ids are written as $BigInt pairs and read from pairs or plain integers")
    func ids() throws {
        #expect(
            RivetMessageCodec.encode(ClientMessage.actionRequest(id: UInt64.max, name: "a", args: []))
                == #"{"body":{"tag":"ActionRequest","val":{"id":["$BigInt","18446744073709551615"],"name":"a","args":[]}}}"#)
        let plain = try RivetMessageCodec.decodeClientMessage(#"{"body":{"tag":"ActionRequest","val":{"id":7,"name":"a","args":[]}}}"#)
        #expect(plain == .actionRequest(id: 7, name: "a", args: []))
        #expect(throws: ActorError.self) {
            try RivetMessageCodec.decodeClientMessage(#"{"body":{"tag":"ActionRequest","val":{"id":-1,"name":"a","args":[]}}}"#)
        }
    }

    @Test("A connection-level error carries actionId null, and an Error without actionId is refused")
    func errorActionId() throws {
        let connectionError = ServerMessage.error(ActorError(group: "actor", code: "not_found", message: "gone"), actionId: nil)
        let text = RivetMessageCodec.encode(connectionError)
        #expect(text == #"{"body":{"tag":"Error","val":{"group":"actor","code":"not_found","message":"gone","actionId":null}}}"#)
        #expect(try RivetMessageCodec.decodeServerMessage(text) == connectionError)
        let error = #expect(throws: ActorError.self) {
            try RivetMessageCodec.decodeServerMessage(#"{"body":{"tag":"Error","val":{"group":"a","code":"b","message":""}}}"#)
        }
        #expect(error?.group == "message")
        #expect(error?.code == "malformed")
    }

    @Test("The JSON compat forms are read: $BigInt, $Undefined, $Uint8Array, $ArrayBuffer, $Set and escaped arrays")
    func compatRead() throws {
        let wire = try JSONValue(
            parsing: #"[["$BigInt","12"],["$BigInt","99999999999999999999"],["$Undefined",0],["$Uint8Array","AQI="],["$ArrayBuffer","AA=="],["$Set",[1,["$BigInt","2"]]],["$$x",1],{"k":["$Undefined",0]}]"#)
        let value = try RivetJSONCompat.decode(wire)
        #expect(value == [12, "99999999999999999999", nil, "AQI=", "AA==", [1, 2], ["$x", 1], ["k": nil]])
        let unknown = #expect(throws: ActorError.self) { try RivetJSONCompat.decode(["$Date", "x"]) }
        #expect(unknown?.code == "malformed")
    }

    @Test("User arrays shaped like a tagged pair are escaped on the way out and come back unchanged")
    func compatEscape() throws {
        let user: JSONValue = [["$BigInt", "1"], ["$", 2], ["plain", 3], ["$a", "b", "c"]]
        let wire = RivetJSONCompat.encode(user)
        #expect(wire == [["$$BigInt", "1"], ["$$", 2], ["plain", 3], ["$a", "b", "c"]])
        #expect(try RivetJSONCompat.decode(wire) == user)
        let frame = RivetMessageCodec.encode(ServerMessage.event(name: "e", args: [["$BigInt", "1"]]))
        #expect(frame == #"{"body":{"tag":"Event","val":{"name":"e","args":[["$$BigInt","1"]]}}}"#)
        #expect(try RivetMessageCodec.decodeServerMessage(frame) == .event(name: "e", args: [["$BigInt", "1"]]))
    }

    @Test("Malformed frames are refused with message.malformed")
    func malformed() {
        for text in [
            "not json", "[]", #"{"body":{"tag":"Nope","val":{}}}"#, #"{"body":{"tag":"ActionRequest"}}"#,
            #"{"body":{"tag":"ActionRequest","val":{"id":["$BigInt","0"],"name":"a","args":5}}}"#,
            #"{"body":{"tag":"SubscriptionRequest","val":{"eventName":"x","subscribe":"yes"}}}"#,
        ] {
            let error = #expect(throws: ActorError.self) { try RivetMessageCodec.decodeClientMessage(text) }
            #expect(error?.group == "message", "\(text)")
        }
        #expect(throws: ActorError.self) {
            try RivetMessageCodec.decodeServerMessage(#"{"body":{"tag":"Event","val":{"name":"e","args":5}}}"#)
        }
    }

    @Test("HTTP action bodies match the transcripts both ways")
    func httpActionBodies() throws {
        let transcript = try RivetTranscript.load("with-auth")
        let request = try #require(transcript.entries("http_request").first { $0.string("method") == "POST" })
        let body = try #require(request.string("body"))
        #expect(try RivetMessageCodec.decodeActionRequestBody(Array(body.utf8)) == [5])
        #expect(RivetMessageCodec.encodeActionRequestBody(args: [5]) == body)
        #expect(RivetMessageCodec.encodeActionResponseBody(output: 5) == #"{"output":5}"#)
        #expect(try RivetMessageCodec.decodeActionResponseBody(Array(#"{"output":5}"#.utf8)) == 5)
        #expect(try RivetMessageCodec.decodeActionRequestBody(Array("{}".utf8)) == [])
        let error = ActorError(group: "user", code: "test_error", message: "boom", metadata: ["why": "asked to fail"])
        let errorBody = RivetMessageCodec.encodeErrorBody(error)
        #expect(errorBody == #"{"group":"user","code":"test_error","message":"boom","metadata":{"why":"asked to fail"}}"#)
        #expect(RivetMessageCodec.decodeErrorBody(Array(errorBody.utf8)) == error)
        #expect(RivetMessageCodec.decodeErrorBody(Array("oops".utf8)) == nil)
    }

    @Test("Close reasons group.code#ray parse into structured errors, other texts do not")
    func closeReasons() {
        let reason = ActorCloseReason(parsing: "actor.not_found#abcd")
        #expect(reason == ActorCloseReason(group: "actor", code: "not_found", rayId: "abcd"))
        #expect(reason?.isStaleActor == true)
        #expect(reason?.description == "actor.not_found#abcd")
        #expect(ActorCloseReason(parsing: "message.malformed") == ActorCloseReason(group: "message", code: "malformed"))
        #expect(ActorCloseReason(parsing: "message.malformed")?.isStaleActor == false)
        #expect(ActorCloseReason(parsing: "actor.destroyed_during_creation")?.isStaleActor == true)
        #expect(ActorCloseReason(parsing: "Disposed") == nil)
        #expect(ActorCloseReason(parsing: "") == nil)
        #expect(ActorCloseReason(parsing: "a.b").map { $0.error().group } == "a")
    }

    @Test("Keys serialize with RivetKit's escapes for PUT /actors and with form encoding for rvt-key")
    func keys() {
        #expect(ActorKey.serialize(["k1"]) == "k1")
        #expect(ActorKey.serialize([]) == "/")
        #expect(ActorKey.serialize(["a/b", "c\\d", ""]) == #"a\/b/c\\d/\0"#)
        for key in [["k1"], [], ["a/b", "c\\d", ""], ["x", "y", "z"], [""]] {
            #expect(ActorKey.deserialize(ActorKey.serialize(key)) == key, "\(key)")
        }
        #expect(ActorKey.queryValue(["k1"]) == "k1")
        #expect(ActorKey.queryValue([]) == nil)
        #expect(ActorKey.queryValue(["a,b", "c d", "ü"]) == "a%2Cb,c+d,%C3%BC")
        #expect(ActorKey.parts(ofQueryValue: "a%2Cb,c+d,%C3%BC") == ["a,b", "c d", "ü"])
    }

    @Test("Keys are read strictly: every key reads back from both forms as itself, whatever its characters, and other texts are actor.invalid_key")
    func strictKeys() throws {
        let keys: [[String]] = [
            [], [""], ["", ""], ["a\u{0}x"], ["\u{0}"], ["a/b", "c\\d"], ["\\0"], ["0"], ["/", "\\"], ["a,b", "c"],
            ["/\u{301}", "\\\u{301}"], ["é", "👍🏽"], ["+ %"],
        ]
        for key in keys {
            #expect(try ActorKey.parse(serialized: ActorKey.serialize(key)) == key, "\(key)")
            #expect(try ActorKey.queryValue(key).map { try ActorKey.parse(queryValue: $0) } ?? [] == key, "\(key)")
        }
        #expect(try ActorKey.parse(serialized: "") == [])
        #expect(try ActorKey.parse(queryValue: "") == [""])
        #expect(ActorKey.parts(ofQueryValue: "") == [""])
        for malformed in [#"a\x"#, #"a\"#, #"\0a"#, #"a\0"#, "a//b", "a/", "/a", #"\0\0"#] {
            #expect((try? ActorKey.parse(serialized: malformed)) == nil, "\(malformed)")
        }
        for malformed in ["%", "%2", "%ZZ", "a,%FF", "%C3"] {
            #expect((try? ActorKey.parse(queryValue: malformed)) == nil, "\(malformed)")
        }
        do {
            _ = try ActorKey.parse(serialized: #"a\x"#)
            Issue.record("a malformed escape was read")
        } catch {
            #expect(error.group == "actor")
            #expect(error.code == "invalid_key")
        }
    }
}

@Suite("CBOR creation inputs")
struct CBORTests {
    @Test("JSON values round-trip through CBOR, with the encoder's bytes as RFC 8949 writes them")
    func roundTrip() throws {
        #expect(RivetCBOR.encode(41) == [0x18, 0x29])
        #expect(RivetCBOR.encode(-1) == [0x20])
        #expect(RivetCBOR.encode("a") == [0x61, 0x61])
        #expect(RivetCBOR.encode(["k": [true, nil]]) == [0xA1, 0x61, 0x6B, 0x82, 0xF5, 0xF6])
        let value: JSONValue = ["n": 1_000_000_000_000, "d": 1.5, "s": "ü", "a": [1, -500, false], "o": [:]]
        #expect(try RivetCBOR.decode(RivetCBOR.encode(value)) == value)
    }

    @Test("Byte strings, half floats, undefined and bignums read as JSON; truncated or deep input is refused")
    func reading() throws {
        #expect(try RivetCBOR.decode([0x42, 0x01, 0x02]) == "AQI=")
        #expect(try RivetCBOR.decode([0xF9, 0x3C, 0x00]) == 1.0)
        #expect(try RivetCBOR.decode([0xF7]) == nil)
        #expect(try RivetCBOR.decode([0xC2, 0x41, 0x05]) == 5)
        #expect(throws: ActorError.self) { try RivetCBOR.decode([0x82, 0x01]) }
        #expect(throws: ActorError.self) { try RivetCBOR.decode([0x9F]) }
        #expect(throws: ActorError.self) { try RivetCBOR.decode(Array(repeating: 0x81, count: 100) + [0x01]) }
        #expect(throws: ActorError.self) { try RivetCBOR.decode([0x01, 0x02]) }
        #expect(Base64.encode([0xFB, 0xFF], urlSafe: true) == "-_8")
        #expect(Base64.decode("-_8", acceptingURLSafe: true) == [0xFB, 0xFF])
    }
}
