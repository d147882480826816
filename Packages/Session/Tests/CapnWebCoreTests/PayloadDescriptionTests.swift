import Testing
@testable import CapnWebCore
import RpcWire

@Suite("RpcPayload description")
struct PayloadDescriptionTests {
    /// A target with every default, to make a stub from.
    final class Nothing: RpcTarget {}

    @Test("JSON scalars are written as compact JSON")
    func scalars() {
        #expect(RpcPayload.null.description == "null")
        #expect(RpcPayload.bool(true).description == "true")
        #expect(RpcPayload.bool(false).description == "false")
        #expect(RpcPayload.integer(-5).description == "-5")
        #expect(RpcPayload.integer(.max).description == "9223372036854775807")
    }

    @Test(
        "Doubles are written like Number.prototype.toString",
        arguments: [
            (1.5, "1.5"), (100.0, "100"), (0.1, "0.1"), (1e21, "1e+21"), (1e-7, "1e-7"),
            (0.000001, "0.000001"), (-2.5e-10, "-2.5e-10"), (123.456, "123.456"),
        ])
    func doubles(value: Double, text: String) {
        #expect(RpcPayload.double(value).description == text)
    }

    @Test("Non-finite numbers and negative zero are written as JavaScript literals")
    func nonFiniteNumbers() {
        #expect(RpcPayload.double(.nan).description == "NaN")
        #expect(RpcPayload.double(.infinity).description == "Infinity")
        #expect(RpcPayload.double(-.infinity).description == "-Infinity")
        #expect(RpcPayload.double(-0.0).description == "-0")
        #expect(RpcPayload.array([.undefined, .double(.nan)]).description == "[undefined,NaN]")
    }

    @Test("Strings are escaped like JSON.stringify")
    func strings() {
        #expect(RpcPayload.string("a\"b\\c\n\t\u{1}/é\u{2028}").description == "\"a\\\"b\\\\c\\n\\t\\u0001/é\u{2028}\"")
        #expect(RpcPayload.string("").description == "\"\"")
    }

    @Test("Arrays and objects are compact and keep member order")
    func containers() {
        let payload: RpcPayload = ["b": 1, "a": [true, nil, "x"], "": [:], "u": .undefined]
        #expect(payload.description == #"{"b":1,"a":[true,null,"x"],"":{},"u":undefined}"#)
        #expect(RpcPayload.array([]).description == "[]")
    }

    @Test("Bigints and dates are written as JavaScript literals")
    func bigintsAndDates() {
        #expect(RpcPayload.bigint("12").description == "12n")
        #expect(RpcPayload.bigint("-5").description == "-5n")
        #expect(RpcPayload.date(5).description == "new Date(5)")
        #expect(RpcPayload.date(-1.5).description == "new Date(-1.5)")
        #expect(RpcPayload.date(nil).description == "new Date(NaN)")
        #expect(RpcPayload.date(.infinity).description == "new Date(NaN)")
    }

    @Test("Bytes are written as the typed array that holds them")
    func bytes() {
        #expect(RpcPayload.bytes([1, 2, 3]).description == "new Uint8Array([1,2,3])")
        #expect(RpcPayload.bytes([], type: .uint8Array).description == "new Uint8Array([])")
        #expect(RpcPayload.bytes([1, 2], type: .arrayBuffer).description == "new Uint8Array([1,2]).buffer")
        #expect(
            RpcPayload.bytes([9], type: .dataView).description == "new DataView(new Uint8Array([9]).buffer)")
        #expect(RpcPayload.bytes([255, 1], type: .int8Array).description == "new Int8Array([-1,1])")
        #expect(
            RpcPayload.bytes([255, 3], type: .uint8ClampedArray).description == "new Uint8ClampedArray([255,3])")
        #expect(
            RpcPayload.bytes([1, 0, 255, 255], type: .uint16Array).description == "new Uint16Array([1,65535])")
        #expect(RpcPayload.bytes([255, 255], type: .int16Array).description == "new Int16Array([-1])")
        #expect(
            RpcPayload.bytes([0, 0, 0, 128], type: .int32Array).description == "new Int32Array([-2147483648])")
        #expect(
            RpcPayload.bytes([255, 255, 255, 255], type: .uint32Array).description == "new Uint32Array([4294967295])")
        #expect(
            RpcPayload.bytes(Array(repeating: 255, count: 8), type: .bigInt64Array).description
                == "new BigInt64Array([-1n])")
        #expect(
            RpcPayload.bytes(Array(repeating: 255, count: 8), type: .bigUint64Array).description
                == "new BigUint64Array([18446744073709551615n])")
        #expect(RpcPayload.bytes([0, 0, 192, 63], type: .float32Array).description == "new Float32Array([1.5])")
        #expect(
            RpcPayload.bytes([0, 0, 0, 0, 0, 0, 248, 127], type: .float64Array).description
                == "new Float64Array([NaN])")
    }

    @Test("Bytes that do not fill whole elements show the raw bytes and the type")
    func unevenBytes() {
        #expect(RpcPayload.bytes([1, 2, 3], type: .uint16Array).description == "new Uint8Array([1,2,3]) /* Uint16Array */")
    }

    @Test("Built-in errors use their constructor")
    func builtInErrors() {
        #expect(RpcPayload.error(RpcErrorValue(name: "TypeError", message: "bad")).description == #"new TypeError("bad")"#)
        #expect(RpcPayload.error(RpcErrorValue(message: "say \"hi\"")).description == #"new Error("say \"hi\"")"#)
        #expect(
            RpcPayload.error(RpcErrorValue(name: "RangeError", message: "x", stack: "at f")).description
                == #"new RangeError("x")"#)
    }

    @Test("Custom error names and properties are assigned onto an Error")
    func customErrors() {
        let notFound = RpcErrorValue(name: "NotFound", message: "no todo 7", properties: [.init("id", 7)])
        #expect(RpcPayload.error(notFound).description == #"Object.assign(new Error("no todo 7"),{"name":"NotFound","id":7})"#)
        let coded = RpcErrorValue(name: "TypeError", message: "m", properties: [.init("code", .undefined)])
        #expect(RpcPayload.error(coded).description == #"Object.assign(new TypeError("m"),{"code":undefined})"#)
    }

    @Test("URLs and headers use their constructors")
    func urlsAndHeaders() {
        #expect(RpcPayload.url("https://example.com/a?b").description == #"new URL("https://example.com/a?b")"#)
        #expect(
            RpcPayload.headers([CapnWebHeader("a", "1"), CapnWebHeader("content-type", "text/plain")]).description
                == #"new Headers([["a","1"],["content-type","text/plain"]])"#)
        #expect(RpcPayload.headers([]).description == "new Headers([])")
    }

    @Test("Requests and responses show their URL, body and INIT members")
    func fetchValues() {
        let plain = RpcPayload.request(url: "https://a.b/", init: CapnWebFetchInit(), body: nil)
        #expect(plain.description == #"new Request("https://a.b/")"#)
        let post = RpcPayload.request(
            url: "https://a.b/x",
            init: CapnWebFetchInit([.field("method", "POST"), .field("headers", [["a", "b"]])]),
            body: .string("hi"))
        #expect(post.description == #"new Request("https://a.b/x",{"method":"POST","headers":[["a","b"]],"body":"hi"})"#)
        let response = RpcPayload.response(body: .bytes([1]), init: CapnWebFetchInit([.field("status", 201)]))
        #expect(response.description == #"new Response(new Uint8Array([1]),{"status":201})"#)
        #expect(RpcPayload.response(body: .null, init: CapnWebFetchInit()).description == "new Response(null)")
        let odd = RpcPayload.response(body: .null, init: CapnWebFetchInit([.field("x", .double(.nan))]))
        #expect(odd.description == #"new Response(null,{"x":NaN})"#)
    }

    @Test("References are shown as placeholders")
    func references() {
        let stream = RpcReadableStream(elements: [])
        #expect(RpcPayload.stub(RpcStub(Nothing())).description == "[stub]")
        #expect(RpcPayload.readable(stream).description == "[ReadableStream]")
        #expect(RpcPayload.writable(RpcWritableStream(write: { _ in })).description == "[WritableStream]")
        #expect(RpcPayload.blob(mimeType: "text/plain", stream).description == "[Blob text/plain]")
        #expect(RpcPayload.blob(mimeType: "", stream).description == "[Blob]")
        #expect(RpcPayload.array([.stub(RpcStub(Nothing())), 1]).description == "[[stub],1]")
    }

    @Test("PayloadText.describe gives the same text as description")
    func describeMatchesDescription() {
        let payload: RpcPayload = ["a": [.double(.infinity), .bigint("1"), .date(nil)]]
        #expect(PayloadText.describe(payload) == payload.description)
        #expect(PayloadText.describe(payload) == #"{"a":[Infinity,1n,new Date(NaN)]}"#)
    }
}
