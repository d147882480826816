import RpcWire
import Testing

/// A message whose text and typed form must convert into each other exactly.
struct CapnWebRoundTripCase: Sendable, CustomTestStringConvertible {
    var label: String
    var text: String
    var message: CapnWebMessage

    var testDescription: String { label }

    init(_ label: String, _ text: String, _ message: CapnWebMessage) {
        self.label = label
        self.text = text
        self.message = message
    }

    static let all: [CapnWebRoundTripCase] = [
        .init("JSON primitives", #"["push",[[null,true,false,-7,2.5,"q\"\n"]]]"#,
              .push([.null, true, false, -7, 2.5, "q\"\n"])),
        .init("object keeps member order", #"["resolve",1,{"b":1,"a":{"c":[["x"]]},"":["undefined"]}]"#,
              .resolve(exportID: 1, value: ["b": 1, "a": ["c": ["x"]], "": .undefined])),
        .init("nested escaped arrays", #"["resolve",1,[[[[1,[[2]]]],[[]]]]]"#,
              .resolve(exportID: 1, value: [[1, [2]], []])),
        .init("empty literal array", #"["resolve",2,[[]]]"#, .resolve(exportID: 2, value: [])),
        .init("undefined and non-finite numbers", #"["push",[[["undefined"],["inf"],["-inf"],["nan"]]]]"#,
              .push([.undefined, .infinity, .negativeInfinity, .nan])),
        .init("bigint", #"["push",[[["bigint","-5"],["bigint","0"],["bigint","123456789012345678901234567890"]]]]"#,
              .push([.bigint("-5"), .bigint("0"), .bigint("123456789012345678901234567890")])),
        .init("dates", #"["push",[[["date",5],["date",8640000000000000],["date",-86400000],["date",null]]]]"#,
              .push([.date(5), .date(8.64e15), .date(-86_400_000), .date(nil)])),
        .init("bytes without marker", #"["push",["bytes","AQID"]]"#, .push(.bytes([1, 2, 3]))),
        .init("empty bytes", #"["push",["bytes",""]]"#, .push(.bytes([]))),
        .init("bytes ending in byte 61", #"["push",["bytes","AT0"]]"#, .push(.bytes([1, 61]))),
        .init("Uint16Array bytes", #"["push",["bytes","AQACAQ","Uint16Array"]]"#,
              .push(.bytes([1, 0, 2, 1], type: .uint16Array))),
        .init("3-element error", #"["reject",3,["error","TypeError","bad"]]"#,
              .reject(exportID: 3, value: .error(name: "TypeError", message: "bad"))),
        .init("4-element error with stack", #"["reject",3,["error","Error","boom","Error: boom\n    at f (x.js:1:1)"]]"#,
              .reject(exportID: 3, value: .error(name: "Error", message: "boom", stack: "Error: boom\n    at f (x.js:1:1)"))),
        .init("5-element error with null stack", #"["reject",3,["error","RangeError","r",null,{"code":7}]]"#,
              .reject(exportID: 3, value: .error(name: "RangeError", message: "r", properties: [CapnWebMember("code", 7)]))),
        .init("5-element error with stack and cause", #"["reject",3,["error","Error","outer","s",{"cause":["error","TypeError","inner"],"list":[[1]]}]]"#,
              .reject(exportID: 3, value: .error(
                  name: "Error", message: "outer", stack: "s",
                  properties: [CapnWebMember("cause", .error(name: "TypeError", message: "inner")), CapnWebMember("list", [1])]))),
        .init("export, promise, readable, writable", #"["resolve",9,[[["export",-1],["promise",-2],["readable",3],["writable",-4]]]]"#,
              .resolve(exportID: 9, value: [.export(-1), .promise(-2), .readable(3), .writable(-4)])),
        .init("import forms", #"["push",[[["import",0],["import",1,["a",2]],["import",-1,[],[1,[[2]]]]]]]"#,
              .push([.import(0), .import(1, path: ["a", 2]), .import(-1, path: [], arguments: [1, [2]])])),
        .init("pipeline forms", #"["push",["pipeline",0,["echo"],[["pipeline",8],["pipeline",6,["profile","displayName"]],["pipeline",7,[]]]]]"#,
              .push(.pipeline(0, path: ["echo"], arguments: [
                  .pipeline(8), .pipeline(6, path: ["profile", "displayName"]), .pipeline(7, path: []),
              ]))),
        .init("remap", #"["push",["remap",14,["items",0],[["import",0],["export",-2]],[["pipeline",-1,["f"],[["pipeline",0]]],{"x":["pipeline",1]}]]]"#,
              .push(.remap(14, path: ["items", 0], captures: [.import(0), .export(-2)], instructions: [
                  .pipeline(-1, path: ["f"], arguments: [.pipeline(0)]), ["x": .pipeline(1)],
              ]))),
        .init("url and headers", #"["push",[[["url","https://x.test/a?b=1"],["headers",[["x-a","1"],["set-cookie","c=d"]]],["headers",[]]]]]"#,
              .push([.url("https://x.test/a?b=1"), .headers([CapnWebHeader("x-a", "1"), CapnWebHeader("set-cookie", "c=d")]), .headers([])])),
        .init("request with body", #"["push",["request","https://x.test/up",{"method":"POST","headers":[["content-type","text/plain"]],"body":"hi","duplex":"half"}]]"#,
              .push(.request(url: "https://x.test/up", init: CapnWebFetchInit([
                  .field("method", "POST"), .field("headers", [["content-type", "text/plain"]]),
                  .body("hi"), .field("duplex", "half"),
              ])))),
        .init("request with stream body and no init", #"["push",[[["request","https://x.test/",{"body":["readable",2],"duplex":"half"}],["request","https://x.test/",{}]]]]"#,
              .push([
                  .request(url: "https://x.test/", init: CapnWebFetchInit([.body(.readable(2)), .field("duplex", "half")])),
                  .request(url: "https://x.test/", init: CapnWebFetchInit()),
              ])),
        .init("response with body", #"["resolve",5,["response",["bytes","aGk"],{"status":201,"statusText":"Created","headers":[["x","y"]],"cf":{"a":[1,{"b":null}]}}]]"#,
              .resolve(exportID: 5, value: .response(body: .bytes(Array("hi".utf8)), init: CapnWebFetchInit([
                  .field("status", 201), .field("statusText", "Created"), .field("headers", [["x", "y"]]),
                  .field("cf", ["a": [1, ["b": nil]]]),
              ])))),
        .init("response with null body", #"["resolve",5,["response",null,{}]]"#,
              .resolve(exportID: 5, value: .response(body: .null, init: CapnWebFetchInit()))),
        .init("blob", #"["push",["pipeline",0,["echoBlob"],[["blob","text/plain",["readable",4]]]]]"#,
              .push(.pipeline(0, path: ["echoBlob"], arguments: [.blob(mimeType: "text/plain", readable: 4)]))),
        .init("pull", #"["pull",1]"#, .pull(importID: 1)),
        .init("release", #"["release",-3,2]"#, .release(importID: -3, refcount: 2)),
        .init("abort", #"["abort",["error","Error","bye"]]"#, .abort(.error(name: "Error", message: "bye"))),
        .init("stream", #"["stream",["pipeline",-3,["close"],[]]]"#, .stream(.pipeline(-3, path: ["close"], arguments: []))),
        .init("pipe", #"["pipe"]"#, .pipe),
        .init("large IDs and doubles", #"["resolve",-9007199254740991,[[1e+21,0.000001,-1.5e-7,9223372036854775807]]]"#,
              .resolve(exportID: -9_007_199_254_740_991, value: [1e21, 0.000001, -1.5e-7, .integer(.max)])),
    ]
}

/// A message the decoder must refuse with a given code at a given place.
struct CapnWebErrorCase: Sendable, CustomTestStringConvertible {
    var label: String
    var text: String
    var code: WireError.Code
    var path: String
    var message: String?

    var testDescription: String { label }

    init(_ label: String, _ text: String, _ code: WireError.Code, at path: String, _ message: String? = nil) {
        self.label = label
        self.text = text
        self.code = code
        self.path = path
        self.message = message
    }

    static let all: [CapnWebErrorCase] = [
        // Top level.
        .init("message that is an object", #"{"push":1}"#, .invalidMessage, at: ""),
        .init("message that is a string", #""push""#, .invalidMessage, at: ""),
        .init("empty message", #"[]"#, .invalidMessage, at: ""),
        .init("message tag that is not a string", #"[1,2]"#, .invalidMessage, at: "/0"),
        .init("unknown message tag", #"["frob",1]"#, .unknownTag, at: "", #"unknown message tag "frob""#),
        // Arity.
        .init("push without expression", #"["push"]"#, .wrongArity, at: "", #""push" takes 2 elements, got 1"#),
        .init("pull with two IDs", #"["pull",1,2]"#, .wrongArity, at: ""),
        .init("release without count", #"["release",1]"#, .wrongArity, at: "", #""release" takes 3 elements, got 2"#),
        .init("resolve without value", #"["resolve",1]"#, .wrongArity, at: ""),
        .init("pipe with operand", #"["pipe",1]"#, .wrongArity, at: "", #""pipe" takes 1 element, got 2"#),
        .init("pipeline with five elements", #"["push",["pipeline",0,["f"],[],5]]"#, .wrongArity, at: "/1",
              #""pipeline" takes 2 to 4 elements, got 5"#),
        .init("import without ID", #"["push",["import"]]"#, .wrongArity, at: "/1"),
        .init("remap with four elements", #"["push",["remap",0,[],[]]]"#, .wrongArity, at: "/1"),
        .init("undefined with operand", #"["push",[[1,["undefined",1]]]]"#, .wrongArity, at: "/1/0/1"),
        .init("error with name only", #"["reject",1,["error","Error"]]"#, .wrongArity, at: "/2",
              #""error" takes 3 to 5 elements, got 2"#),
        .init("bytes without data", #"["push",["bytes"]]"#, .wrongArity, at: "/1"),
        .init("headers with extra operand", #"["push",["headers",[],1]]"#, .wrongArity, at: "/1"),
        .init("remap capture with extra operand", #"["push",["remap",0,[],[["import",0,1]],[]]]"#, .wrongArity, at: "/1/3/0"),
        // Tags.
        .init("unknown expression tag", #"["push",["frob"]]"#, .unknownTag, at: "/1", #"unknown expression tag "frob""#),
        .init("unknown tag inside arguments", #"["push",["pipeline",0,["f"],[["frob"]]]]"#, .unknownTag, at: "/1/3/0"),
        .init("unknown remap capture tag", #"["push",["remap",0,[],[["pipeline",0]],[]]]"#, .unknownTag, at: "/1/3/0"),
        // Escaping.
        .init("unescaped literal array", #"["push",[1,2]]"#, .unescapedArray, at: "/1", "literal array must be escaped as [[...]]"),
        .init("unescaped empty array", #"["resolve",1,{"a":[]}]"#, .unescapedArray, at: "/2/a"),
        .init("unescaped array argument", #"["push",["pipeline",0,["f"],[[1,2]]]]"#, .unescapedArray, at: "/1/3/0"),
        .init("one-element array holding a number", #"["push",[[[5]]]]"#, .unescapedArray, at: "/1/0/0"),
        // Bigint.
        .init("bigint with a letter", #"["push",["bigint","12a"]]"#, .invalidBigInt, at: "/1/1"),
        .init("empty bigint", #"["push",["bigint",""]]"#, .invalidBigInt, at: "/1/1"),
        .init("bigint with a lone minus", #"["push",["bigint","-"]]"#, .invalidBigInt, at: "/1/1"),
        .init("bigint with a plus sign", #"["push",["bigint","+5"]]"#, .invalidBigInt, at: "/1/1"),
        .init("bigint with spaces", #"["push",["bigint"," 5"]]"#, .invalidBigInt, at: "/1/1"),
        .init("bigint that is a number", #"["push",["bigint",5]]"#, .invalidExpression, at: "/1/1"),
        // Bytes.
        .init("base64 with a bad character", #"["push",["bytes","AQ*D"]]"#, .invalidBase64, at: "/1/1", "invalid base64 in bytes"),
        .init("base64 with URL-safe characters", #"["push",["bytes","-_-_"]]"#, .invalidBase64, at: "/1/1"),
        .init("base64 of impossible length", #"["push",["bytes","AQIDB"]]"#, .invalidBase64, at: "/1/1"),
        .init("base64 with padding inside", #"["push",["bytes","AQ==AQID"]]"#, .invalidBase64, at: "/1/1"),
        .init("base64 with incomplete padding", #"["push",["bytes","AQ="]]"#, .invalidBase64, at: "/1/1"),
        .init("base64 with three padding characters", #"["push",["bytes","A==="]]"#, .invalidBase64, at: "/1/1"),
        .init("unknown bytes marker", #"["push",["bytes","AQID","Float16Array"]]"#, .unknownBytesType, at: "/1/2",
              #"unknown bytes type "Float16Array""#),
        .init("misaligned Uint16Array", #"["push",["bytes","AQID","Uint16Array"]]"#, .misalignedBytes, at: "/1",
              "Uint16Array byte length 3 is not a multiple of 2"),
        .init("misaligned Float64Array", #"["push",[[1,["bytes","AQIDBAUGBw","Float64Array"]]]]"#, .misalignedBytes, at: "/1/0/1",
              "Float64Array byte length 7 is not a multiple of 8"),
        // IDs.
        .init("pull with a string ID", #"["pull","1"]"#, .invalidMessage, at: "/1"),
        .init("pull with a fractional ID", #"["pull",1.5]"#, .invalidMessage, at: "/1"),
        .init("release with a null count", #"["release",1,null]"#, .invalidMessage, at: "/2"),
        .init("resolve with a boolean ID", #"["resolve",true,1]"#, .invalidMessage, at: "/1"),
        .init("pipeline with a string ID", #"["push",["pipeline","0",["f"]]]"#, .invalidExpression, at: "/1/1"),
        .init("export with a fractional ID", #"["resolve",1,{"s":["export",-1.5]}]"#, .invalidExpression, at: "/2/s/1"),
        .init("remap capture with a string ID", #"["push",["remap",0,[],[["import","0"]],[]]]"#, .invalidExpression, at: "/1/3/0/1"),
        .init("blob stream with a null ID", #"["push",["blob","text/plain",["readable",null]]]"#, .invalidExpression, at: "/1/2/1"),
        // Other operands.
        .init("path that is a string", #"["push",["pipeline",0,"f"]]"#, .invalidExpression, at: "/1/2"),
        .init("path element that is a boolean", #"["push",["pipeline",0,["a",true]]]"#, .invalidExpression, at: "/1/2/1"),
        .init("arguments that are an object", #"["push",["pipeline",0,["f"],{}]]"#, .invalidExpression, at: "/1/3"),
        .init("date that is a string", #"["push",["date","2020"]]"#, .invalidExpression, at: "/1/1"),
        .init("error properties that are an array", #"["push",["error","E","m",null,[[1]]]]"#, .invalidExpression, at: "/1/4"),
        .init("error stack that is a number", #"["push",["error","E","m",5]]"#, .invalidExpression, at: "/1/3"),
        .init("header that is not a pair", #"["push",["headers",[["a","b"],["c"]]]]"#, .invalidExpression, at: "/1/1/1"),
        .init("request init that is null", #"["push",["request","https://x.test/",null]]"#, .invalidExpression, at: "/1/2"),
        .init("request headers that are an object", #"["push",["request","u",{"headers":{"a":"b"}}]]"#, .invalidExpression, at: "/1/2/headers"),
        .init("bad expression in request body", #"["push",["request","u",{"body":["frob"]}]]"#, .unknownTag, at: "/1/2/body"),
        .init("blob without a readable", #"["push",["blob","text/plain",["writable",4]]]"#, .invalidExpression, at: "/1/2"),
        .init("pointer escapes in keys", #"["resolve",1,{"a/b":{"c~d":[1]}}]"#, .unescapedArray, at: "/2/a~1b/c~0d"),
    ]
}

@Suite("Cap'n Web codec")
struct CapnWebCodecTests {
    let codec = CapnWebCodec()

    // MARK: Round trips

    @Test("every expression form decodes to its typed model and encodes back to the same bytes", arguments: CapnWebRoundTripCase.all)
    func roundTrip(_ testCase: CapnWebRoundTripCase) throws {
        let decoded = try codec.decode(Array(testCase.text.utf8))
        #expect(decoded == testCase.message)
        let encoded = try codec.encode(testCase.message)
        #expect(String(decoding: encoded, as: UTF8.self) == testCase.text)
        let tree = try codec.encodeToJSON(testCase.message)
        #expect(try codec.decode(tree) == testCase.message)
        #expect(tree == (try JSONParser().parse(testCase.text)))
    }

    @Test("every bytes type marker round-trips with aligned data", arguments: CapnWebBytesType.allCases)
    func bytesMarkers(_ type: CapnWebBytesType) throws {
        let data: [UInt8] = [0, 1, 2, 3, 4, 5, 6, 255]
        let text = #"["push",["bytes","AAECAwQFBv8",""# + type.rawValue + #""]]"#
        #expect(try codec.decode(text) == .push(.bytes(data, type: type)))
        #expect(String(decoding: try codec.encode(.push(.bytes(data, type: type))), as: UTF8.self) == text)
        #expect(8 % type.elementSize == 0)
    }

    @Test("element sizes follow the typed-array kinds")
    func elementSizes() {
        #expect(CapnWebBytesType.allCases.count == 13)
        #expect(CapnWebBytesType.uint8ClampedArray.elementSize == 1)
        #expect(CapnWebBytesType.dataView.elementSize == 1)
        #expect(CapnWebBytesType.int16Array.elementSize == 2)
        #expect(CapnWebBytesType.float32Array.elementSize == 4)
        #expect(CapnWebBytesType.bigUint64Array.elementSize == 8)
    }

    @Test("base64 is decoded with or without padding and encoded without it")
    func base64Padding() throws {
        #expect(try codec.decode(#"["push",["bytes","AQ=="]]"#) == .push(.bytes([1])))
        #expect(try codec.decode(#"["push",["bytes","AQI="]]"#) == .push(.bytes([1, 2])))
        #expect(try codec.decode(#"["push",["bytes","AQ"]]"#) == .push(.bytes([1])))
        #expect(try codec.decode(#"["push",["bytes","+/+/"]]"#) == .push(.bytes([0xFB, 0xFF, 0xBF])))
        #expect(String(decoding: try codec.encode(.push(.bytes([1, 2]))), as: UTF8.self) == #"["push",["bytes","AQI"]]"#)
        let all = (0...255).map { UInt8($0) }
        let encoded = try codec.encode(.push(.bytes(all)))
        #expect(try codec.decode(encoded) == .push(.bytes(all)))
    }

    @Test("an ID written as an integral double is accepted")
    func integralDoubleIDs() throws {
        #expect(try codec.decode(#"["pull",1.0]"#) == .pull(importID: 1))
        #expect(try codec.decode(#"["release",2e0,1]"#) == .release(importID: 2, refcount: 1))
        #expect(try codec.decode(#"["push",["pipeline",0.0,[1.0]]]"#) == .push(.pipeline(0, path: [1])))
    }

    @Test("a 4-element error with a null stack decodes as the 3-element form")
    func errorWithNullStack() throws {
        let message = try codec.decode(#"["reject",1,["error","Error","m",null]]"#)
        #expect(message == .reject(exportID: 1, value: .error(name: "Error", message: "m")))
        #expect(String(decoding: try codec.encode(message), as: UTF8.self) == #"["reject",1,["error","Error","m"]]"#)
    }

    @Test("non-finite doubles and invalid dates are written as their special forms")
    func nonFiniteEncoding() throws {
        let message = CapnWebMessage.push([.double(.infinity), .double(-.infinity), .double(.nan), .date(.nan), .date(nil), .date(-0.0)])
        #expect(
            String(decoding: try codec.encode(message), as: UTF8.self)
                == #"["push",[[["inf"],["-inf"],["nan"],["date",null],["date",null],["date",0]]]]"#)
        #expect(try codec.decode(JSONValue.array(["push", .double(.infinity)])) == .push(.infinity))
    }

    @Test("a date beyond ±8.64e15 ms decodes as the invalid date and a fraction is cut off, as in JavaScript")
    func datesClipLikeJavaScript() throws {
        let cases: [(text: String, time: Double?)] = [
            ("1e300", nil), ("-1e300", nil), ("8640000000000001", nil), ("-8640000000000001", nil),
            ("8640000000000000", 8.64e15), ("-8640000000000000", -8.64e15), ("8.64e15", 8.64e15),
            ("9007199254740993", nil), ("1.9", 1), ("-1.9", -1), ("-0", 0), ("-0.5", 0), ("null", nil),
        ]
        for testCase in cases {
            // The fast reader takes the message alone; inside an object the full decoder does.
            for text in [
                #"["push",["date",\#(testCase.text)]]"#, #"["push",{"k":["date",\#(testCase.text)],"s":"\n"}]"#,
            ] {
                let decoded = try codec.decode(text)
                let expected: CapnWebMessage =
                    text.contains("{") ? .push(["k": .date(testCase.time), "s": "\n"]) : .push(.date(testCase.time))
                #expect(decoded == expected, "\(text)")
                if case .push(.date(let time?)) = decoded {
                    #expect(time.sign == .plus || time != 0, "negative zero in \(text)")
                }
            }
        }
        #expect(CapnWebDate.timeClip(.nan) == nil)
        #expect(CapnWebDate.timeClip(.infinity) == nil)
        #expect(CapnWebDate.timeClip(nil) == nil)
    }

    @Test("a date the reference would hold as invalid is written as [\"date\",null]")
    func invalidDatesEncodeAsNull() throws {
        let message = CapnWebMessage.push([.date(1e300), .date(-8.640000000000001e15), .date(8.64e15), .date(-1.9)])
        #expect(
            String(decoding: try codec.encode(message), as: UTF8.self)
                == #"["push",[[["date",null],["date",null],["date",8640000000000000],["date",-1]]]]"#)
        let tree = try codec.encodeToJSON(.push(.date(1e300)))
        #expect(tree == (try JSONParser().parse(#"["push",["date",null]]"#)))
    }

    @Test("a string holding a lone surrogate escape decodes with U+FFFD in its place, unless the codec rejects it")
    func loneSurrogateStrings() throws {
        let text = #"["push",["pipeline",0,["echo"],["a\ud800b",{"\udfff":"\ud83d\ude00"}]]]"#
        let decoded = try codec.decode(text)
        #expect(decoded == .push(.pipeline(0, path: ["echo"], arguments: ["a\u{FFFD}b", ["\u{FFFD}": "😀"]])))
        #expect(try codec.decode(Array(text.utf8)) == decoded)
        #expect(CapnWebCodec.Configuration.default.loneSurrogates == .replaceWithReplacementCharacter)
        let strict = CapnWebCodec(configuration: .init(loneSurrogates: .reject))
        let error = #expect(throws: WireError.self) { try strict.decode(text) }
        #expect(error?.code == .loneSurrogate)
    }

    @Test("arguments without a path are written with an empty path")
    func argumentsWithoutPath() throws {
        let message = CapnWebMessage.push(.pipeline(-1, arguments: [21]))
        #expect(String(decoding: try codec.encode(message), as: UTF8.self) == #"["push",["pipeline",-1,[],[21]]]"#)
    }

    @Test("the string, raw-buffer and appending entry points agree with the byte entry points")
    func entryPoints() throws {
        let text = #"["push",["pipeline",0,["square"],[5]]]"#
        let expected = CapnWebMessage.push(.pipeline(0, path: ["square"], arguments: [5]))
        #expect(try codec.decode(text) == expected)
        let bytes = Array(text.utf8)
        let fromBuffer = try bytes.withUnsafeBytes { (buffer) throws(WireError) -> CapnWebMessage in
            try codec.decode(buffer)
        }
        #expect(fromBuffer == expected)
        #expect(try codec.decodeExpression(JSONParser().parse(#"["pipeline",0,["square"],[5]]"#)) == .pipeline(0, path: ["square"], arguments: [5]))
        #expect(try codec.encodeExpression(.bigint("-5")) == Array(#"["bigint","-5"]"#.utf8))
        #expect(try codec.encodeExpressionToJSON(.undefined) == ["undefined"])

        var batch = Array(#"["pull",1]"#.utf8)
        batch.append(UInt8(ascii: "\n"))
        try codec.encode(expected, appendingTo: &batch)
        #expect(String(decoding: batch, as: UTF8.self) == "[\"pull\",1]\n" + text)
        #expect(throws: WireError.self) { try codec.encode(.push(.bigint("x")), appendingTo: &batch) }
        #expect(String(decoding: batch, as: UTF8.self) == "[\"pull\",1]\n" + text)
    }

    // MARK: Errors

    @Test("malformed messages fail with the right code and a JSON Pointer to the offending part", arguments: CapnWebErrorCase.all)
    func malformed(_ testCase: CapnWebErrorCase) throws {
        let error = try #require(throws: WireError.self) { try codec.decode(testCase.text) }
        #expect(error.code == testCase.code, "\(error)")
        #expect(error.path == testCase.path, "\(error)")
        if let message = testCase.message {
            #expect(error.message == message)
        }
        // The JSON-value entry point reports the same failure.
        let parsed = try JSONParser().parse(testCase.text)
        let fromValue = try #require(throws: WireError.self) { try codec.decode(parsed) }
        #expect(fromValue == error)
    }

    @Test("bigint digits beyond the limit are refused, the sign not counted")
    func bigintLimit() throws {
        let limited = CapnWebCodec(configuration: .init(maxBigIntDigits: 10))
        #expect(try limited.decode(#"["push",["bigint","-1234567890"]]"#) == .push(.bigint("-1234567890")))
        let error = try #require(throws: WireError.self) { try limited.decode(#"["push",["bigint","12345678901"]]"#) }
        #expect(error.code == .invalidBigInt)
        #expect(error.path == "/1/1")

        let atDefault = String(repeating: "9", count: 16_384)
        #expect(try codec.decode(#"["push",["bigint",""# + atDefault + #""]]"#) == .push(.bigint(atDefault)))
        let tooLong = try #require(throws: WireError.self) {
            try codec.decode(#"["push",["bigint","-"# + atDefault + #"9"]]"#)
        }
        #expect(tooLong.code == .invalidBigInt)
        #expect(tooLong.message == "bigint has 16385 digits, more than the limit of 16384")
    }

    /// `["push", {"a": {"a": ... 1}}]` with `objects` nested objects: the deepest object sits at
    /// depth `objects + 1`.
    private static func nestedMessage(objects: Int) -> (text: String, value: JSONValue) {
        var value: JSONValue = 1
        for _ in 0..<objects {
            value = ["a": value]
        }
        let text = #"["push","# + String(repeating: #"{"a":"#, count: objects) + "1"
            + String(repeating: "}", count: objects) + "]"
        return (text, ["push", value])
    }

    @Test("nesting up to 256 levels decodes and 300 levels fails with depthLimitExceeded")
    func depthLimit() throws {
        let atLimit = Self.nestedMessage(objects: 255)
        #expect(throws: Never.self) { try codec.decode(atLimit.text) }
        #expect(throws: Never.self) { try codec.decode(atLimit.value) }

        let justOver = Self.nestedMessage(objects: 256)
        #expect((try? codec.decode(justOver.value)) == nil)

        let deep = Self.nestedMessage(objects: 299)
        let fromText = try #require(throws: WireError.self) { try codec.decode(deep.text) }
        #expect(fromText.code == .depthLimitExceeded)
        let fromValue = try #require(throws: WireError.self) { try codec.decode(deep.value) }
        #expect(fromValue.code == .depthLimitExceeded)
        #expect(fromValue.path == "/1" + String(repeating: "/a", count: 255))

        // Escaped arrays count two levels each.
        let arrays = #"["push","# + String(repeating: "[[", count: 150) + String(repeating: "]]", count: 150) + "]"
        let arrayError = try #require(throws: WireError.self) { try codec.decode(arrays) }
        #expect(arrayError.code == .depthLimitExceeded)
    }

    @Test("encoding refuses nesting the receiver would refuse")
    func encodeDepthLimit() throws {
        var expression: CapnWebExpression = 1
        for _ in 0..<300 {
            expression = ["a": expression]
        }
        let error = try #require(throws: WireError.self) { try codec.encode(.push(expression)) }
        #expect(error.code == .depthLimitExceeded)
    }

    @Test("a message larger than the size limit fails with inputTooLarge before parsing")
    func sizeLimit() throws {
        let small = CapnWebCodec(configuration: .init(maxMessageSize: 17))
        #expect(try small.decode(#"["pull",12345678]"#) == .pull(importID: 12_345_678))  // 17 bytes
        let error = try #require(throws: WireError.self) { try small.decode(#"["pull",123456789]"#) }
        #expect(error.code == .inputTooLarge)

        var huge = [UInt8](repeating: UInt8(ascii: " "), count: 32 * 1024 * 1024 + 1)
        huge[0] = UInt8(ascii: "[")
        let hugeError = try #require(throws: WireError.self) { try codec.decode(huge) }
        #expect(hugeError.code == .inputTooLarge)
    }

    @Test("encoding refuses malformed bigint text, misaligned typed bytes and inconsistent INIT objects")
    func encodeValidation() throws {
        let bigint = try #require(throws: WireError.self) { try codec.encode(.push(.bigint("12a"))) }
        #expect(bigint.code == .invalidBigInt)
        let bytes = try #require(throws: WireError.self) { try codec.encode(.push(.bytes([1, 2, 3], type: .int32Array))) }
        #expect(bytes.code == .misalignedBytes)
        let repeated = CapnWebFetchInit([.field("method", "GET"), .field("method", "POST")])
        let repeatedError = try #require(throws: WireError.self) { try codec.encode(.push(.request(url: "u", init: repeated))) }
        #expect(repeatedError.code == .invalidExpression)
        let bodyField = CapnWebFetchInit([.field("body", "x")])
        #expect(throws: WireError.self) { try codec.encodeToJSON(.push(.request(url: "u", init: bodyField))) }
    }

    // MARK: Model helpers and descriptions

    @Test("the INIT accessors read, replace, append and remove members in place")
    func fetchInitAccessors() {
        var requestInit = CapnWebFetchInit([.field("method", "POST"), .body("a"), .field("duplex", "half")])
        #expect(requestInit.body == "a")
        #expect(requestInit[field: "method"] == "POST")
        requestInit.body = .readable(3)
        requestInit[field: "method"] = "PUT"
        requestInit[field: "cache"] = "no-store"
        #expect(requestInit.members == [.field("method", "PUT"), .body(.readable(3)), .field("duplex", "half"), .field("cache", "no-store")])
        requestInit.body = nil
        requestInit[field: "duplex"] = nil
        #expect(requestInit.members == [.field("method", "PUT"), .field("cache", "no-store")])
        #expect(requestInit.body == nil)
    }

    @Test("messages and expressions describe themselves concisely")
    func descriptions() {
        let cases: [(CapnWebMessage, String)] = [
            (.push(.pipeline(0, path: ["square"], arguments: [5])), #"push pipeline(0, ["square"], [5])"#),
            (.resolve(exportID: 1, value: 25), "resolve 1 25"),
            (.release(importID: 1, refcount: 1), "release 1 ×1"),
            (.pull(importID: 7), "pull 7"),
            (.pipe, "pipe"),
            (.reject(exportID: 2, value: .error(name: "RangeError", message: "r", properties: [CapnWebMember("code", 7)])),
             #"reject 2 error("RangeError", "r", {"code": 7})"#),
            (.abort(.error(name: "Error", message: "x", stack: "s")), #"abort error("Error", "x", stack: "s")"#),
            (.stream(.pipeline(7, path: ["write"], arguments: [[1, "a"]])), #"stream pipeline(7, ["write"], [[1, "a"]])"#),
            (.push(.import(3, path: ["items", 0])), #"push import(3, ["items", 0])"#),
            (.resolve(exportID: 1, value: ["a": .bigint("-5"), "b": .date(5), "c": .date(nil), "d": .undefined]),
             #"resolve 1 {"a": bigint(-5), "b": date(5), "c": date(invalid), "d": undefined}"#),
            (.resolve(exportID: 1, value: [.bytes([1, 2, 3]), .bytes([1, 2], type: .uint16Array), .infinity, .nan]),
             "resolve 1 [bytes(3 B), bytes(2 B, Uint16Array), inf, nan]"),
            (.push(.blob(mimeType: "text/plain", readable: 4)), #"push blob("text/plain", readable(4))"#),
            (.push(.headers([CapnWebHeader("x-a", "1")])), #"push headers(["x-a": "1"])"#),
            (.push(.request(url: "u", init: CapnWebFetchInit([.field("headers", [["a", "b"]]), .body(.readable(2))]))),
             #"push request("u", {"headers": [["a", "b"]], "body": readable(2)})"#),
            (.push(.response(body: .null, init: CapnWebFetchInit([.field("status", 404)]))), #"push response(null, {"status": 404})"#),
            (.push(.remap(1, path: [], captures: [.import(0), .export(-2)], instructions: [.pipeline(1)])),
             "push remap(1, [], [import(0), export(-2)], [pipeline(1)])"),
            (.push(.string("line\n\"q\"")), #"push "line\n\"q\"""#),
        ]
        for (message, text) in cases {
            #expect(message.description == text)
        }
    }
}
