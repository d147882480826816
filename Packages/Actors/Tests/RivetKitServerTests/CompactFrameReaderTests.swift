@testable import RivetKit
import Testing

@Suite("Compact action frames read without parsing the envelope")
struct CompactFrameReaderTests {
    /// The same frame with a space after the first brace: no longer compact, so the codec reads
    /// it with the general parser.
    static func spaced(_ frame: String) -> String {
        "{ " + frame.dropFirst()
    }

    static func outcome(_ read: () throws(ActorError) -> some Equatable) -> String {
        do {
            return "value \(try read())"
        } catch {
            return "error \(error.group).\(error.code)"
        }
    }

    static let requests = [
        #"{"body":{"tag":"ActionRequest","val":{"id":["$BigInt","0"],"name":"getCount","args":[]}}}"#,
        #"{"body":{"tag":"ActionRequest","val":{"id":["$BigInt","18446744073709551615"],"name":"a b","args":[1,"x",{"k":[true,null]}]}}}"#,
        #"{"body":{"tag":"ActionRequest","val":{"id":["$BigInt","7"],"name":"set","args":[["$BigInt","9"],["$$x",1],["$Undefined",0]]}}}"#,
        #"{"body":{"tag":"ActionRequest","val":{"id":["$BigInt","7"],"name":"set","args":[["$Nope",1]]}}}"#,
        #"{"body":{"tag":"ActionRequest","val":{"id":["$BigInt","18446744073709551616"],"name":"a","args":[]}}}"#,
        #"{"body":{"tag":"ActionRequest","val":{"id":["$BigInt","+5"],"name":"a","args":[]}}}"#,
        #"{"body":{"tag":"ActionRequest","val":{"id":["$BigInt",""],"name":"a","args":[]}}}"#,
        #"{"body":{"tag":"ActionRequest","val":{"id":["$BigInt","1"],"name":"a\"b","args":[]}}}"#,
        #"{"body":{"tag":"ActionRequest","val":{"id":["$BigInt","1"],"name":"é","args":[]}}}"#,
        #"{"body":{"tag":"ActionRequest","val":{"id":["$BigInt","1"],"name":"a","args":5}}}"#,
        #"{"body":{"tag":"ActionRequest","val":{"id":["$BigInt","1"],"name":"a","args":[1],"args":[2]}}}"#,
        #"{"body":{"tag":"ActionRequest","val":{"id":["$BigInt","1"],"name":"a","args":[1]},"x":{}}}"#,
        #"{"body":{"tag":"ActionRequest","val":{"id":["$BigInt","1"],"name":"a","args":[1}}}"#,
        #"{"body":{"tag":"ActionRequest","val":{"id":["$BigInt","1"],"name":"a","args": [1] }}}"#,
    ]

    static let responses = [
        #"{"body":{"tag":"ActionResponse","val":{"id":["$BigInt","0"],"output":10}}}"#,
        #"{"body":{"tag":"ActionResponse","val":{"id":["$BigInt","3"],"output":{"a":[1,2.5,"x"],"b":null}}}}"#,
        #"{"body":{"tag":"ActionResponse","val":{"id":["$BigInt","3"],"output":["$BigInt","12345678901234567890"]}}}"#,
        #"{"body":{"tag":"ActionResponse","val":{"id":["$BigInt","3"],"output":["$$BigInt","1"]}}}"#,
        #"{"body":{"tag":"ActionResponse","val":{"id":["$BigInt","3"],"output":["$Nope",1]}}}"#,
        #"{"body":{"tag":"ActionResponse","val":{"id":["$BigInt","3"],"output":}}}"#,
        #"{"body":{"tag":"ActionResponse","val":{"id":["$BigInt","3"],"output":1,"output":2}}}"#,
        #"{"body":{"tag":"ActionResponse","val":{"id":["$BigInt","3"],"output":1}}}  "#,
    ]

    @Test("Every action request reads as the general parser reads it, or fails as it does", arguments: requests)
    func requestsReadAsTheGeneralParser(frame: String) {
        let compact = Self.outcome { () throws(ActorError) in try RivetMessageCodec.decodeClientMessage(frame) }
        let general = Self.outcome { () throws(ActorError) in try RivetMessageCodec.decodeClientMessage(Self.spaced(frame)) }
        #expect(compact == general)
    }

    @Test("Every action response reads as the general parser reads it, or fails as it does", arguments: responses)
    func responsesReadAsTheGeneralParser(frame: String) {
        let compact = Self.outcome { () throws(ActorError) in try RivetMessageCodec.decodeServerMessage(frame) }
        let general = Self.outcome { () throws(ActorError) in try RivetMessageCodec.decodeServerMessage(Self.spaced(frame)) }
        #expect(compact == general)
    }

    @Test("The frames the codec writes take the compact path; other forms are left to the general parser")
    func compactPathIsTaken() throws {
        let request = RivetMessageCodec.frame(ClientMessage.actionRequest(id: 42, name: "increment", args: [1, ["$x", 2]]))
        let read = try #require(CompactFrameReader.actionRequest(request))
        #expect(read.id == 42 && read.name == "increment" && read.args == [1, ["$$x", 2]])
        let response = RivetMessageCodec.frame(ServerMessage.actionResponse(id: 7, output: ["n": 1]))
        let answer = try #require(CompactFrameReader.actionResponse(response))
        #expect(answer.id == 7 && answer.output == ["n": 1])
        #expect(CompactFrameReader.actionRequest(Array(Self.spaced(String(decoding: request, as: UTF8.self)).utf8)) == nil)
        #expect(CompactFrameReader.actionResponse(request) == nil)
        #expect(CompactFrameReader.actionRequest(Array(Self.requests[7].utf8)) == nil)
    }

    @Test("Arguments nested up to the parser's depth limit are read, one level deeper is refused, on both paths")
    func depthLimit() {
        let limit = 256  // JSONParser's default: the envelope's three objects and `args` count.
        func frame(depth: Int) -> String {
            let inner = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
            return #"{"body":{"tag":"ActionRequest","val":{"id":["$BigInt","1"],"name":"a","args":["# + inner + "]}}}"
        }
        for (depth, accepted) in [(limit - 4, true), (limit - 3, false)] {
            let text = frame(depth: depth)
            let compact = Self.outcome { () throws(ActorError) in try RivetMessageCodec.decodeClientMessage(text) }
            let general = Self.outcome { () throws(ActorError) in try RivetMessageCodec.decodeClientMessage(Self.spaced(text)) }
            #expect(compact == general)
            #expect(compact.hasPrefix("value") == accepted, "\(depth)")
        }
    }
}
