import Foundation
import RpcWire
import Testing

@Suite("JSON value encoder")
struct JSONValueEncoderTests {
    private let encoder = JSONValueEncoder()

    // MARK: Structure

    @Test("A struct encodes as an object with members in encoding order and nil optionals left out")
    func structAsObject() throws {
        let value = try encoder.encode(EncodedPerson(name: "Ada", age: 36, score: 0.5, active: true, nickname: nil))
        #expect(value == ["name": "Ada", "age": 36, "score": 0.5, "active": true])
        #expect(value.objectValue?.keys == ["name", "age", "score", "active"])
        #expect(try encoder.encodeToString(EncodedPerson(name: "B", age: 1, score: 2, active: false, nickname: "b"))
            == #"{"name":"B","age":1,"score":2,"active":false,"nickname":"b"}"#)
    }

    @Test("Integers of every width encode as exact integers")
    func integerWidths() throws {
        let value = try encoder.encode(AllIntegers.maximums)
        #expect(value == [
            "int": .integer(Int64(Int.max)), "int8": 127, "int16": 32767, "int32": 2_147_483_647,
            "int64": .integer(.max), "uint": .integer(Int64.max), "uint8": 255, "uint16": 65535,
            "uint32": 4_294_967_295, "uint64": .integer(.max),
        ])
        #expect(try encoder.encode(Int8.min) == -128)
        #expect(try encoder.encode(Int128(-5)) == -5)
        #expect(try encoder.encode(UInt128(Int64.max)) == .integer(.max))
    }

    @Test("An unsigned value above Int64.max fails with invalidValue at its coding path")
    func unsignedOverflow() throws {
        let wrapper = Wrapper(items: [BigNumber(big: 1), BigNumber(big: .max)])
        let error = try #require(throws: EncodingError.self) { try encoder.encode(wrapper) }
        guard case .invalidValue(let value, let context) = error else {
            Issue.record("expected invalidValue, got \(error)")
            return
        }
        #expect(value as? UInt64 == .max)
        #expect(pathDescription(context.codingPath) == ["items", "Index 1", "big"])
        #expect(context.codingPath[1].intValue == 1)
        #expect(throws: EncodingError.self) { try encoder.encode([UInt(UInt64.max)]) }
        #expect(throws: EncodingError.self) { try encoder.encode(UInt128(UInt64.max)) }
        #expect(throws: EncodingError.self) { try encoder.encode(Int128.min) }
    }

    @Test("Floats encode as the double with their shortest digits")
    func floats() throws {
        #expect(try encoder.encode(Float(0.1)) == .double(0.1))
        #expect(try encoder.encodeToString([Float(1.1), Float(3.0), Float(-2.5e-8)]) == "[1.1,3,-2.5e-8]")
        #expect(try encoder.encode(0.1) == .double(0.1))
        #expect(try encoder.encode(Float.greatestFiniteMagnitude).doubleValue.map { Float($0) } == .greatestFiniteMagnitude)
    }

    @Test("Non-finite numbers fail with invalidValue at their path unless converted to strings")
    func nonConformingFloats() throws {
        let error = try #require(throws: EncodingError.self) { try encoder.encode(["a": [1.0, .infinity]]) }
        guard case .invalidValue(_, let context) = error else {
            Issue.record("expected invalidValue")
            return
        }
        #expect(pathDescription(context.codingPath) == ["a", "Index 1"])
        #expect(throws: EncodingError.self) { try encoder.encode(Float.nan) }

        var converting = JSONValueEncoder()
        converting.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "+inf", negativeInfinity: "-inf", nan: "nan")
        #expect(try converting.encode([Double.infinity, -.infinity, .nan, 1]) == ["+inf", "-inf", "nan", 1.0])
        #expect(try converting.encode(Float.infinity) == "+inf")
    }

    // MARK: Strategies

    @Test("Dates follow each date encoding strategy")
    func dateStrategies() throws {
        let date = Date(timeIntervalSince1970: 1_700_000_000.5)
        var custom = JSONValueEncoder()
        #expect(try custom.encode(date) == .double(date.timeIntervalSinceReferenceDate))
        custom.dateEncodingStrategy = .secondsSince1970
        #expect(try custom.encode(date) == .double(1_700_000_000.5))
        custom.dateEncodingStrategy = .millisecondsSince1970
        #expect(try custom.encode(date) == .double(1_700_000_000_500))
        custom.dateEncodingStrategy = .iso8601
        #expect(try custom.encode(date) == "2023-11-14T22:13:20Z")
        #expect(try custom.encode(Date(timeIntervalSince1970: -0.5)) == "1969-12-31T23:59:59Z")
        #expect(try custom.encode(Date(timeIntervalSince1970: 951_782_400)) == "2000-02-29T00:00:00Z")
        #expect(throws: EncodingError.self) { try custom.encode(Date(timeIntervalSince1970: 1e12)) }
        custom.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode("day \(Int(date.timeIntervalSince1970) / 86_400)")
        }
        #expect(try custom.encode(["when": date]) == ["when": "day 19675"])
        custom.dateEncodingStrategy = .custom { _, _ in }
        #expect(try custom.encode([date]) == [[:]])
    }

    @Test("Data follows each data encoding strategy")
    func dataStrategies() throws {
        let data = Data([1, 2, 3, 255])
        var custom = JSONValueEncoder()
        #expect(try custom.encode(data) == "AQID/w==")
        custom.dataEncodingStrategy = .deferredToData
        #expect(try custom.encode(data) == [1, 2, 3, 255])
        custom.dataEncodingStrategy = .custom { data, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(data.count)
        }
        #expect(try custom.encode(["d": data]) == ["d": 4])
    }

    @Test("URLs encode as their absolute string and Decimals as numbers")
    func urlsAndDecimals() throws {
        let base = try #require(URL(string: "https://example.com/a/"))
        let relative = try #require(URL(string: "b?c=d", relativeTo: base))
        #expect(try encoder.encode(relative) == "https://example.com/a/b?c=d")
        #expect(try encoder.encode(Decimal(42)) == 42)
        #expect(try encoder.encode(try #require(Decimal(string: "12.25"))) == 12.25)
        #expect(try encoder.encode(try #require(Decimal(string: "-0.1"))) == .double(-0.1))
    }

    @Test("Snake-case conversion splits words at capitals and acronyms and keeps outer underscores")
    func snakeCaseKeys() throws {
        var snake = JSONValueEncoder()
        snake.keyEncodingStrategy = .convertToSnakeCase
        let value = try snake.encode(CamelKeys())
        #expect(value.objectValue?.keys == [
            "one_two_three", "my_url_property", "url_first", "simple", "_leading_value", "trailing_", "a1_b2", "__",
        ])
    }

    @Test("Dictionary keys are data and are never converted by the key strategy")
    func dictionaryKeysNotConverted() throws {
        var snake = JSONValueEncoder()
        snake.keyEncodingStrategy = .convertToSnakeCase
        let value = try snake.encode(DictionaryHolder(innerMap: ["camelKey": 1]))
        #expect(value == ["inner_map": ["camelKey": 1]])
    }

    @Test("A custom key strategy receives the full coding path")
    func customKeyStrategy() throws {
        var custom = JSONValueEncoder()
        custom.keyEncodingStrategy = .custom { path in
            let depth = path.count
            let last = path.last?.stringValue ?? ""
            return AnyTestKey("\(last.uppercased())\(depth)")
        }
        let value = try custom.encode(Outer(inner: Inner(leaf: 1)))
        #expect(value == ["INNER1": ["LEAF2": 1]])
    }

    @Test("Encoders and containers see the user info")
    func userInfo() throws {
        var custom = JSONValueEncoder()
        let key = try #require(CodingUserInfoKey(rawValue: "mode"))
        custom.userInfo[key] = "loud"
        #expect(try custom.encode(UserInfoEcho(key: key)) == "loud")
    }

    // MARK: Containers

    @Test("Nested keyed and unkeyed containers write into the tree at their keys")
    func nestedContainers() throws {
        let value = try encoder.encode(ManualNesting())
        #expect(value == ["meta": ["kind": "m", "tags": ["x", "y"]], "rows": [["n": 1], [true, nil]]])
    }

    @Test("Super encoders write under super, under a chosen key, or as the next element")
    func superEncoders() throws {
        #expect(try encoder.encode(DerivedShape(sides: 4, name: "square")) == ["sides": 4, "super": ["name": "square"]])
        #expect(try encoder.encode(SuperForKey()) == ["parent": ["p": 1], "own": 2])
        #expect(try encoder.encode(UnkeyedSuper()) == [1, ["p": 1], 3])
        #expect(try encoder.encode(UnusedSuper()) == ["super": [:]])
    }

    @Test("Encoding a key twice keeps its first position and the last value")
    func duplicateKeys() throws {
        let value = try encoder.encode(TwiceEncoded())
        #expect(value.objectValue?.keys == ["a", "b"])
        #expect(value["a"] == 3)
    }

    @Test("Coding paths seen inside encode(to:) match the position of the value")
    func codingPathsSeenByValues() throws {
        let recorder = PathRecorder()
        let container = ProbeHolder(items: [Probe(recorder: recorder), Probe(recorder: recorder)], single: Probe(recorder: recorder))
        _ = try encoder.encode(container)
        #expect(recorder.paths == [["items", "Index 0"], ["items", "Index 1"], ["single"]])
    }

    @Test("A top-level value that encodes nothing fails with invalidValue")
    func topLevelNothing() {
        #expect(throws: EncodingError.self) { try encoder.encode(EncodesNothing()) }
        #expect((try? encoder.encode([EncodesNothing()])) == JSONValue.array([.object([:])]))
    }

    // MARK: JSON values and Swift shapes

    @Test("A JSONValue passes through the encoder unchanged, even a non-finite double")
    func jsonValuePassThrough() throws {
        let value: JSONValue = ["a": [1, 2.5, nil, .double(.infinity)], "b": ["c": "d"]]
        #expect(try encoder.encode(value) == value)
        #expect(try encoder.encode(JSONHolder(payload: value, id: 3)) == ["payload": value, "id": 3])
        let error = try #require(throws: EncodingError.self) { try encoder.encodeToBytes(value) }
        guard case .invalidValue(_, let context) = error else {
            Issue.record("expected invalidValue")
            return
        }
        #expect((context.underlyingError as? WireError)?.code == .nonFiniteNumber)
    }

    @Test("Enums with associated values encode in the synthesized keyed shape")
    func enumsWithAssociatedValues() throws {
        #expect(try encoder.encode(EncodedShape.circle(radius: 1.5)) == ["circle": ["radius": 1.5]])
        #expect(try encoder.encode(EncodedShape.square(2)) == ["square": ["_0": 2.0]])
        #expect(try encoder.encode(EncodedShape.empty) == ["empty": [:]])
    }

    @Test("Dictionaries with Int keys become objects and with other keys become key-value arrays")
    func dictionaryKeyKinds() throws {
        #expect(try encoder.encode([7: "seven"]) == ["7": "seven"])
        #expect(try encoder.encode([EncodedColor.red: 1]) == ["red", 1])
    }

    @Test("Bytes and strings come out of the serializer, canonical on request")
    func textOutput() throws {
        let map = ["b": 1, "a": 2, "c": 3]
        #expect(try encoder.encodeToString(map, canonical: true) == #"{"a":2,"b":1,"c":3}"#)
        #expect(try encoder.encodeToBytes(map, canonical: true) == Array(#"{"a":2,"b":1,"c":3}"#.utf8))
    }

    @Test("A JSONValue survives Foundation's JSONEncoder and JSONDecoder")
    func foundationRoundTrip() throws {
        let value: JSONValue = ["name": "x", "list": [1, 2.5, true, nil, "s"], "nested": ["k": []]]
        let data = try JSONEncoder().encode(value)
        #expect(try JSONValue(parsing: String(decoding: data, as: UTF8.self)) == value)
        #expect(try JSONDecoder().decode(JSONValue.self, from: data) == value)
    }
}

// MARK: - Models

private struct EncodedPerson: Codable {
    var name: String
    var age: Int
    var score: Double
    var active: Bool
    var nickname: String?
}

private struct AllIntegers: Codable {
    var int: Int
    var int8: Int8
    var int16: Int16
    var int32: Int32
    var int64: Int64
    var uint: UInt
    var uint8: UInt8
    var uint16: UInt16
    var uint32: UInt32
    var uint64: UInt64

    static let maximums = AllIntegers(
        int: .max, int8: .max, int16: .max, int32: .max, int64: .max, uint: UInt(Int64.max), uint8: .max,
        uint16: .max, uint32: .max, uint64: UInt64(Int64.max))
}

private struct BigNumber: Codable {
    var big: UInt64
}

private struct Wrapper<Item: Codable>: Codable {
    var items: [Item]
}

private struct CamelKeys: Encodable {
    enum CodingKeys: String, CodingKey {
        case oneTwoThree, myURLProperty, URLFirst, simple, _leadingValue, trailing_, a1B2, __
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        for key in [CodingKeys.oneTwoThree, .myURLProperty, .URLFirst, .simple, ._leadingValue, .trailing_, .a1B2, .__] {
            try container.encode(1, forKey: key)
        }
    }
}

private struct DictionaryHolder: Codable {
    var innerMap: [String: Int]
}

private struct Outer: Codable {
    var inner: Inner
}

private struct Inner: Codable {
    var leaf: Int
}

private struct AnyTestKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }

    init(_ string: String) {
        stringValue = string
    }

    init?(stringValue: String) {
        self.stringValue = stringValue
    }

    init?(intValue: Int) {
        nil
    }
}

private struct UserInfoEcho: Encodable {
    var key: CodingUserInfoKey

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(encoder.userInfo[key] as? String ?? "missing")
    }
}

private struct ManualNesting: Encodable {
    enum Keys: String, CodingKey { case meta, rows, kind, tags, n }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        var meta = container.nestedContainer(keyedBy: Keys.self, forKey: .meta)
        try meta.encode("m", forKey: .kind)
        var tags = meta.nestedUnkeyedContainer(forKey: .tags)
        try tags.encode("x")
        try tags.encode("y")
        var rows = container.nestedUnkeyedContainer(forKey: .rows)
        var first = rows.nestedContainer(keyedBy: Keys.self)
        var second = rows.nestedUnkeyedContainer()
        try second.encode(true)
        try second.encodeNil()
        try first.encode(1, forKey: .n)
    }
}

private class BaseShape: Encodable {
    var name: String

    init(name: String) {
        self.name = name
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: BaseKeys.self)
        try container.encode(name, forKey: .name)
    }

    enum BaseKeys: String, CodingKey { case name }
}

private final class DerivedShape: BaseShape {
    var sides: Int

    init(sides: Int, name: String) {
        self.sides = sides
        super.init(name: name)
    }

    override func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: DerivedKeys.self)
        try container.encode(sides, forKey: .sides)
        try super.encode(to: container.superEncoder())
    }

    enum DerivedKeys: String, CodingKey { case sides }
}

private struct ParentPart: Encodable {
    var p = 1
}

private struct SuperForKey: Encodable {
    enum Keys: String, CodingKey { case parent, own }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try ParentPart().encode(to: container.superEncoder(forKey: .parent))
        try container.encode(2, forKey: .own)
    }
}

private struct UnkeyedSuper: Encodable {
    func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        try container.encode(1)
        let superEncoder = container.superEncoder()
        try container.encode(3)
        try ParentPart().encode(to: superEncoder)
    }
}

private struct UnusedSuper: Encodable {
    enum Keys: CodingKey {}

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        _ = container.superEncoder()
    }
}

private struct TwiceEncoded: Encodable {
    enum Keys: String, CodingKey { case a, b }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(1, forKey: .a)
        try container.encode(2, forKey: .b)
        try container.encode(3, forKey: .a)
    }
}

private final class PathRecorder {
    var paths: [[String]] = []
}

private struct Probe: Encodable {
    let recorder: PathRecorder

    func encode(to encoder: any Encoder) throws {
        recorder.paths.append(pathDescription(encoder.codingPath))
        var container = encoder.singleValueContainer()
        try container.encode(0)
    }
}

private struct ProbeHolder: Encodable {
    var items: [Probe]
    var single: Probe
}

private struct EncodesNothing: Encodable {
    func encode(to encoder: any Encoder) throws {}
}

private struct JSONHolder: Codable {
    var payload: JSONValue
    var id: Int
}

private enum EncodedShape: Codable {
    case circle(radius: Double)
    case square(Double)
    case empty
}

private enum EncodedColor: String, Codable {
    case red
}

/// The string values of a coding path.
private func pathDescription(_ path: [any CodingKey]) -> [String] {
    path.map(\.stringValue)
}
