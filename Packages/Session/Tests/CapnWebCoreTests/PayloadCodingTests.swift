import Foundation
import RpcWire
import Testing

@testable import CapnWebCore

@Suite("Payload coding")
struct PayloadCodingTests {
    // MARK: - Fixtures

    struct Address: Codable, Equatable {
        var street: String
        var zip: Int
    }

    struct Person: Codable, Equatable {
        var name: String
        var age: Int
        var score: Double
        var admin: Bool
        var tags: [String]
        var address: Address
        var nickname: String?
    }

    struct Holder: Codable {
        var label: String
        var callback: RpcStub
        var spare: RpcStub?
    }

    struct Envelope: Codable {
        var id: Int
        var body: RpcPayload
    }

    struct Moment: Codable, Equatable {
        var at: Date
        var blob: Data
        var link: URL
    }

    struct Measure: Codable, Equatable {
        var value: Double
        var label: String
    }

    /// The ``RpcError`` that `body` throws, or `nil` when it throws none or another error.
    private func failure(_ body: () throws -> Void) -> RpcError? {
        do {
            try body()
            return nil
        } catch {
            return error as? RpcError
        }
    }

    private func invalidResponse(_ body: () throws -> Void) -> String? {
        guard case .invalidResponse(let message)? = failure(body) else { return nil }
        return message
    }

    private func locallyRejected(_ body: () throws -> Void) -> String? {
        guard case .remote(type: "TypeError", let message)? = failure(body) else { return nil }
        return message
    }

    /// Structural equality, references compared by identity.
    private func same(_ lhs: RpcPayload, _ rhs: RpcPayload) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null), (.undefined, .undefined): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.integer(let a), .integer(let b)): return a == b
        case (.double(let a), .double(let b)): return a == b || (a.isNaN && b.isNaN)
        case (.string(let a), .string(let b)), (.bigint(let a), .bigint(let b)), (.url(let a), .url(let b)):
            return a == b
        case (.date(let a), .date(let b)): return a == b
        case (.bytes(let a, let typeA), .bytes(let b, let typeB)): return a == b && typeA == typeB
        case (.array(let a), .array(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { same($0, $1) }
        case (.object(let a), .object(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && same($0.value, $1.value) }
        case (.error(let a), .error(let b)):
            return a.name == b.name && a.message == b.message && a.stack == b.stack
        case (.headers(let a), .headers(let b)): return a == b
        case (.stub(let a), .stub(let b)): return a.isSameReference(as: b)
        case (.readable(let a), .readable(let b)): return a === b
        case (.writable(let a), .writable(let b)): return a === b
        default: return false
        }
    }

    private func keys(_ payload: RpcPayload) -> [String] {
        guard case .object(let members) = payload else { return [] }
        return members.map(\.key)
    }

    private func makeStub() -> RpcStub {
        RpcStub(RpcFunction { (x: Int) in x })
    }

    // MARK: - Primitives

    @Test("primitives encode directly and decode back")
    func primitives() throws {
        #expect(same(try RpcPayload(encoding: "hi"), .string("hi")))
        #expect(same(try RpcPayload(encoding: 42), .integer(42)))
        #expect(same(try RpcPayload(encoding: Int64.min), .integer(.min)))
        #expect(same(try RpcPayload(encoding: 2.5), .double(2.5)))
        #expect(same(try RpcPayload(encoding: true), .bool(true)))
        #expect(same(try RpcPayload(encoding: String?.none), .null))
        #expect(same(try RpcPayload(encoding: Int?.some(3)), .integer(3)))
        #expect(same(try RpcPayload(encoding: [RpcPayload.integer(1), .undefined]), [1, .undefined]))
        #expect(same(try RpcPayload(encoding: [UInt8(1), 2]), [1, 2]))

        #expect(try RpcPayload.string("hi").decode(String.self) == "hi")
        #expect(try RpcPayload.integer(42).decode(Int.self) == 42)
        #expect(try RpcPayload.integer(42).decode(Int64.self) == 42)
        #expect(try RpcPayload.bool(false).decode(Bool.self) == false)
        #expect(try RpcPayload.integer(7).decode(UInt8.self) == 7)
        #expect(try RpcPayload.array([1, 2, 3]).decode([Int].self) == [1, 2, 3])
        #expect(try RpcPayload.array([1, "x"]).decode([RpcPayload].self).count == 2)
    }

    @Test("integers decode as doubles and integral doubles decode as integers")
    func numbers() throws {
        #expect(try RpcPayload.integer(3).decode(Double.self) == 3.0)
        #expect(try RpcPayload.double(3.0).decode(Int.self) == 3)
        #expect(try RpcPayload.double(3.0).decode(Int64.self) == 3)
        #expect(try RpcPayload.array([.double(4.0)]).decode([Int].self) == [4])
        #expect(invalidResponse { _ = try RpcPayload.double(3.5).decode(Int.self) } != nil)
        #expect(invalidResponse { _ = try RpcPayload.integer(300).decode(UInt8.self) } != nil)
    }

    @Test("optionals read null, undefined and missing members as nil")
    func optionals() throws {
        #expect(try RpcPayload.undefined.decode(Int?.self) == nil)
        #expect(try RpcPayload.null.decode(String?.self) == nil)
        #expect(try RpcPayload.string("x").decode(String?.self) == "x")
        #expect(try RpcPayload.undefined.decode(Address?.self) == nil)

        let person: RpcPayload = [
            "name": "Ada", "age": 36, "score": 1.5, "admin": false, "tags": [],
            "address": ["street": "Main", "zip": 1], "nickname": .undefined,
        ]
        #expect(try person.decode(Person.self).nickname == nil)

        let encoded = try RpcPayload(
            encoding: Person(
                name: "Ada", age: 36, score: 1.5, admin: false, tags: [], address: Address(street: "Main", zip: 1),
                nickname: nil))
        #expect(encoded["nickname"] == nil)
        #expect(invalidResponse { _ = try RpcPayload.undefined.decode(Int.self) } != nil)
    }

    // MARK: - Structs

    @Test("nested structs round-trip with their members in order")
    func nestedStructs() throws {
        let person = Person(
            name: "Ada", age: 36, score: 99.5, admin: true, tags: ["a", "b"],
            address: Address(street: "Main", zip: 12345), nickname: "ada")
        let payload = try RpcPayload(encoding: person)
        #expect(keys(payload) == ["name", "age", "score", "admin", "tags", "address", "nickname"])
        #expect(same(payload["address"] ?? .null, ["street": "Main", "zip": 12345]))
        #expect(try payload.decode(Person.self) == person)
    }

    @Test("object member order survives decoding into nested payloads and JSON values")
    func memberOrder() throws {
        let body: RpcPayload = ["z": 1, "a": 2, "m": ["y": 1, "b": 2]]
        let envelope = try RpcPayload.object([.init("id", 1), .init("body", body)]).decode(Envelope.self)
        #expect(keys(envelope.body) == ["z", "a", "m"])
        #expect(keys(envelope.body["m"] ?? .null) == ["y", "b"])

        let json = try body.decode(JSONValue.self)
        #expect(json.objectValue?.keys == ["z", "a", "m"])
        let back = try RpcPayload(encoding: json)
        #expect(keys(back) == ["z", "a", "m"])
    }

    // MARK: - Dates, bytes, URLs, bigints, non-finite numbers

    @Test("dates encode as date payloads and decode from milliseconds")
    func dates() throws {
        let date = Date(timeIntervalSince1970: 1_700_000_000.25)
        #expect(same(try RpcPayload(encoding: date), .date(1_700_000_000_250)))
        #expect(try RpcPayload.date(1_700_000_000_250).decode(Date.self) == date)
        #expect(try RpcPayload.date(1_000).decode(Double.self) == 1_000)
        #expect(try RpcPayload.date(nil).decode(Date?.self) == nil)
    }

    @Test("data encodes as bytes and decodes from bytes or base64 text")
    func bytes() throws {
        let data = Data([0, 1, 2, 255])
        #expect(same(try RpcPayload(encoding: data), .bytes([0, 1, 2, 255])))
        #expect(try RpcPayload.bytes([0, 1, 2, 255]).decode(Data.self) == data)
        #expect(try RpcPayload.bytes([9], type: .arrayBuffer).decode(Data.self) == Data([9]))
        #expect(try RpcPayload.string("AAEC/w==").decode(Data.self) == data)
    }

    @Test("dates, data and URLs inside a struct round-trip")
    func foundationValuesInStructs() throws {
        let moment = Moment(
            at: Date(timeIntervalSince1970: 12.5), blob: Data([1, 2, 3]),
            link: try #require(URL(string: "https://example.com/a?b=c")))
        let payload = try RpcPayload(encoding: moment)
        #expect(same(payload["at"] ?? .null, .date(12_500)))
        #expect(same(payload["blob"] ?? .null, .bytes([1, 2, 3])))
        #expect(same(payload["link"] ?? .null, .string("https://example.com/a?b=c")))
        #expect(try payload.decode(Moment.self) == moment)

        let incoming: RpcPayload = [
            "at": .date(12_500), "blob": .bytes([1, 2, 3]), "link": .url("https://example.com/a?b=c"),
        ]
        #expect(try incoming.decode(Moment.self) == moment)
    }

    @Test("a top-level URL encodes as a URL payload")
    func url() throws {
        let url = try #require(URL(string: "https://example.com/"))
        #expect(same(try RpcPayload(encoding: url), .url("https://example.com/")))
        #expect(try RpcPayload.url("https://example.com/").decode(URL.self) == url)
        #expect(try RpcPayload.url("https://example.com/").decode(String.self) == "https://example.com/")
    }

    @Test("bigints decode as Int64 when they fit and as text otherwise")
    func bigints() throws {
        #expect(try RpcPayload.bigint("-5").decode(Int64.self) == -5)
        #expect(try RpcPayload.bigint("9223372036854775807").decode(Int.self) == .max)
        #expect(try RpcPayload.array([.bigint("7")]).decode([Int64].self) == [7])
        let huge = "123456789012345678901234567890"
        #expect(try RpcPayload.bigint(huge).decode(String.self) == huge)
        #expect(try RpcPayload.array([.bigint(huge)]).decode([String].self) == [huge])
        #expect(invalidResponse { _ = try RpcPayload.bigint(huge).decode(Int64.self) } != nil)
    }

    @Test("non-finite doubles survive both ways, and strings stay strings")
    func nonFinite() throws {
        #expect(same(try RpcPayload(encoding: Double.infinity), .double(.infinity)))
        let payload = try RpcPayload(encoding: [Measure(value: -.infinity, label: "Infinity")])
        #expect(same(payload, [["value": .double(-.infinity), "label": "Infinity"]]))
        let nan = try RpcPayload(encoding: Measure(value: .nan, label: "NaN"))
        #expect(same(nan, ["value": .double(.nan), "label": "NaN"]))

        #expect(try RpcPayload.double(.infinity).decode(Double.self) == .infinity)
        let decoded = try RpcPayload.object([.init("value", .double(.nan)), .init("label", "x")]).decode(Measure.self)
        #expect(decoded.value.isNaN)
        #expect(try RpcPayload.array([.double(-.infinity)]).decode([Double].self) == [-.infinity])
    }

    // MARK: - Errors and headers

    @Test("error values decode as objects with name, message and properties")
    func errorValues() throws {
        struct Failure: Decodable {
            var name: String
            var message: String
            var stack: String?
            var code: Int
        }
        let value = RpcErrorValue(name: "NotFound", message: "no todo 7", properties: [.init("code", 404)])
        let failure = try RpcPayload.error(value).decode(Failure.self)
        #expect(failure.name == "NotFound")
        #expect(failure.message == "no todo 7")
        #expect(failure.stack == nil)
        #expect(failure.code == 404)

        let envelope = try RpcPayload.object([.init("id", 1), .init("body", .error(value))]).decode(Envelope.self)
        guard case .error(let back) = envelope.body else {
            Issue.record("expected an error payload")
            return
        }
        #expect(back.name == "NotFound")
        #expect(back.property("code").map { same($0, 404) } == true)
    }

    @Test("headers decode as name-value pairs")
    func headers() throws {
        let payload = RpcPayload.headers([CapnWebHeader("content-type", "text/plain"), CapnWebHeader("x-a", "1")])
        #expect(try payload.decode([[String]].self) == [["content-type", "text/plain"], ["x-a", "1"]])
    }

    // MARK: - References

    @Test("stubs inside structs come back as the same reference")
    func stubsInStructs() throws {
        let stub = makeStub()
        let payload = try RpcPayload(encoding: Holder(label: "cb", callback: stub, spare: nil))
        #expect(keys(payload) == ["label", "callback"])
        guard case .stub(let encoded)? = payload["callback"] else {
            Issue.record("expected a stub member, got \(String(describing: payload["callback"]))")
            return
        }
        #expect(encoded.isSameReference(as: stub))

        let holder = try payload.decode(Holder.self)
        #expect(holder.label == "cb")
        #expect(holder.callback.isSameReference(as: stub))
        #expect(holder.spare == nil)

        #expect(try RpcPayload.stub(stub).decode(RpcStub.self).isSameReference(as: stub))
        #expect(same(try RpcPayload(encoding: stub), .stub(stub)))
        let stubs = try RpcPayload.array([.stub(stub), .null]).decode([RpcStub?].self)
        #expect(stubs.count == 2 && stubs[0]?.isSameReference(as: stub) == true && stubs[1] == nil)
    }

    @Test("refs encode as their stub and decode from one")
    func refs() throws {
        struct Owner: Codable { var ref: Ref<Int> }
        let stub = makeStub()
        let payload = try RpcPayload(encoding: Owner(ref: Ref(stub: stub)))
        guard case .stub(let encoded)? = payload["ref"] else {
            Issue.record("expected a stub member")
            return
        }
        #expect(encoded.isSameReference(as: stub))
        #expect(try payload.decode(Owner.self).ref.stub.isSameReference(as: stub))
    }

    @Test("streams inside structs come back as the same instances")
    func streams() throws {
        struct Pipes: Codable {
            var input: RpcReadableStream
            var output: RpcWritableStream
        }
        let input = RpcReadableStream(elements: [1, 2])
        let output = RpcWritableStream { _ in }
        let payload = try RpcPayload(encoding: Pipes(input: input, output: output))
        #expect(same(payload, ["input": .readable(input), "output": .writable(output)]))
        let pipes = try payload.decode(Pipes.self)
        #expect(pipes.input === input)
        #expect(pipes.output === output)
        let swapped: RpcPayload = ["input": .writable(output), "output": .writable(output)]
        #expect(invalidResponse { _ = try swapped.decode(Pipes.self) } != nil)
    }

    @Test("payloads nested in structs round-trip exactly")
    func nestedPayloads() throws {
        let stub = makeStub()
        let body: RpcPayload = [
            "u": .undefined, "big": .bigint("12345678901234567890"), "when": .date(5), "raw": .bytes([1], type: .int8Array),
            "cb": .stub(stub), "list": [.double(.nan), .url("https://a.b/"), .headers([CapnWebHeader("a", "b")])],
            "err": .error(RpcErrorValue(message: "m")),
        ]
        let outgoing = try RpcPayload(encoding: Envelope(id: 3, body: body))
        #expect(same(outgoing, ["id": 3, "body": body]))

        let envelope = try outgoing.decode(Envelope.self)
        #expect(envelope.id == 3)
        #expect(same(envelope.body, body))

        let many = try RpcPayload.object([.init("a", .undefined), .init("b", .bigint("1"))]).decode([String: RpcPayload].self)
        #expect(many["a"].map { same($0, .undefined) } == true)
        #expect(many["b"].map { same($0, .bigint("1")) } == true)
    }

    @Test("an incoming object with the marker key cannot pass for a reference")
    func markerImpersonation() throws {
        let forged = RpcPayload.object([.init("\u{0}capnweb", 0)])
        let message = invalidResponse {
            _ = try RpcPayload.object([.init("label", "x"), .init("callback", forged)]).decode(Holder.self)
        }
        #expect(message?.contains("callback") == true)
        #expect(invalidResponse { _ = try forged.decode([String: Int].self) } != nil)
        #expect(invalidResponse { _ = try forged.decode(JSONValue.self) } != nil)
        let forgedError = RpcPayload.error(RpcErrorValue(message: "m", properties: [.init("\u{0}capnweb", 0)]))
        #expect(invalidResponse { _ = try forgedError.decode(JSONValue.self) } != nil)
    }

    // MARK: - Failures

    @Test("type mismatches fail with invalidResponse naming the coding path")
    func typeMismatches() throws {
        #expect(invalidResponse { _ = try RpcPayload.string("x").decode(Int.self) }?.contains("Int") == true)
        #expect(invalidResponse { _ = try RpcPayload.integer(1).decode(String.self) } != nil)
        #expect(invalidResponse { _ = try RpcPayload.integer(1).decode(RpcStub.self) } != nil)
        #expect(invalidResponse { _ = try RpcPayload.string("x").decode([RpcPayload].self) } != nil)

        struct Item: Decodable { var name: String }
        struct Order: Decodable { var items: [Item] }
        let order: RpcPayload = ["items": [["name": "ok"], ["name": 5]]]
        let message = invalidResponse { _ = try order.decode(Order.self) }
        #expect(message?.contains("items[1].name") == true, "\(message ?? "no error")")

        let missing = invalidResponse { _ = try RpcPayload.object([]).decode(Item.self) }
        #expect(missing?.contains("name") == true)

        let notStub = invalidResponse { _ = try (["label": "x", "callback": "f"] as RpcPayload).decode(Holder.self) }
        #expect(notStub?.contains("callback") == true)
    }

    @Test("values that cannot be encoded are rejected locally with a TypeError naming the coding path")
    func encodingFailures() throws {
        struct Big: Encodable { var values: [UInt64] }
        let message = locallyRejected { _ = try RpcPayload(encoding: Big(values: [1, .max])) }
        #expect(message?.contains("values[1]") == true, "\(message ?? "no error")")
    }

    @Test("references refuse other encoders and decoders")
    func foreignCoders() throws {
        #expect(throws: EncodingError.self) { try JSONEncoder().encode([makeStub()]) }
        #expect(throws: EncodingError.self) { try JSONEncoder().encode([RpcPayload.stub(makeStub())]) }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([RpcStub].self, from: Data("[1]".utf8)) }

        let text = try JSONEncoder().encode(["a": RpcPayload.array([1, "x", .null])])
        #expect(String(decoding: text, as: UTF8.self) == #"{"a":[1,"x",null]}"#)
        let decoded = try JSONDecoder().decode([RpcPayload].self, from: Data(#"[1,"x",{"k":true}]"#.utf8))
        #expect(same(.array(decoded), [1, "x", ["k": true]]))
    }
}
