import Foundation
import RpcWire
import Testing

@Suite("JSON value decoder")
struct JSONValueDecoderTests {
    private let decoder = JSONValueDecoder()

    // MARK: Errors and their coding paths

    @Test("A wrong kind fails with typeMismatch at the exact coding path")
    func typeMismatchPath() throws {
        let value: JSONValue = ["items": [["x": 1], ["x": "bad"]]]
        let error = try #require(throws: DecodingError.self) { try decoder.decode(Listing.self, from: value) }
        guard case .typeMismatch(let type, let context) = error else {
            Issue.record("expected typeMismatch, got \(error)")
            return
        }
        #expect(ObjectIdentifier(type) == ObjectIdentifier(Int.self))
        #expect(describe(context.codingPath) == ["items", "Index 1", "x"])
        #expect(context.codingPath[1].intValue == 1)
        #expect(context.codingPath[0].intValue == nil)
    }

    @Test("Null where a value is required fails with valueNotFound at the exact coding path")
    func valueNotFoundPath() throws {
        let value: JSONValue = ["items": [["x": 1], ["x": nil]]]
        let error = try #require(throws: DecodingError.self) { try decoder.decode(Listing.self, from: value) }
        guard case .valueNotFound(let type, let context) = error else {
            Issue.record("expected valueNotFound, got \(error)")
            return
        }
        #expect(ObjectIdentifier(type) == ObjectIdentifier(Int.self))
        #expect(describe(context.codingPath) == ["items", "Index 1", "x"])
    }

    @Test("A missing key fails with keyNotFound carrying the key and the container's path")
    func keyNotFoundPath() throws {
        let value: JSONValue = ["items": [["x": 1], ["y": 2]]]
        let error = try #require(throws: DecodingError.self) { try decoder.decode(Listing.self, from: value) }
        guard case .keyNotFound(let key, let context) = error else {
            Issue.record("expected keyNotFound, got \(error)")
            return
        }
        #expect(key.stringValue == "x")
        #expect(describe(context.codingPath) == ["items", "Index 1"])
    }

    @Test("A number out of range fails with dataCorrupted at the exact coding path")
    func outOfRangePath() throws {
        let error = try #require(throws: DecodingError.self) {
            try decoder.decode([String: [UInt8]].self, from: ["a": [1, 300]])
        }
        guard case .dataCorrupted(let context) = error else {
            Issue.record("expected dataCorrupted, got \(error)")
            return
        }
        #expect(describe(context.codingPath) == ["a", "Index 1"])
    }

    @Test("Reading past the end of an unkeyed container fails with valueNotFound at the next index")
    func unkeyedAtEnd() throws {
        let error = try #require(throws: DecodingError.self) { try decoder.decode(Pair.self, from: ["p": [1]]) }
        guard case .valueNotFound(let type, let context) = error else {
            Issue.record("expected valueNotFound, got \(error)")
            return
        }
        #expect(ObjectIdentifier(type) == ObjectIdentifier(Int.self))
        #expect(describe(context.codingPath) == ["p", "Index 1"])
    }

    @Test("A container of the wrong kind fails with typeMismatch, or valueNotFound for null")
    func containerMismatch() throws {
        let error = try #require(throws: DecodingError.self) { try decoder.decode(Listing.self, from: ["items": ["x": 1]]) }
        guard case .typeMismatch(_, let context) = error else {
            Issue.record("expected typeMismatch, got \(error)")
            return
        }
        #expect(describe(context.codingPath) == ["items"])
        let nullError = try #require(throws: DecodingError.self) { try decoder.decode(Listing.self, from: ["items": [nil]]) }
        guard case .valueNotFound(_, let nullContext) = nullError else {
            Issue.record("expected valueNotFound, got \(nullError)")
            return
        }
        #expect(describe(nullContext.codingPath) == ["items", "Index 0"])
        #expect(throws: DecodingError.self) { try decoder.decode(Listing.self, from: [1] as JSONValue) }
    }

    @Test("Coding paths through nested arrays list every index, then the key")
    func nestedArrayPaths() throws {
        let scalarError = try #require(throws: DecodingError.self) {
            try decoder.decode([[Int]].self, from: [[1], [2, "x"]])
        }
        guard case .typeMismatch(_, let scalarContext) = scalarError else {
            Issue.record("expected typeMismatch, got \(scalarError)")
            return
        }
        #expect(describe(scalarContext.codingPath) == ["Index 1", "Index 1"])
        #expect(scalarContext.codingPath.map(\.intValue) == [1, 1])

        let keyedError = try #require(throws: DecodingError.self) {
            try decoder.decode([String: [[Point]]].self, from: ["grid": [[["x": 1]], [["x": 2], ["x": nil]]]])
        }
        guard case .valueNotFound(_, let keyedContext) = keyedError else {
            Issue.record("expected valueNotFound, got \(keyedError)")
            return
        }
        #expect(describe(keyedContext.codingPath) == ["grid", "Index 1", "Index 1", "x"])
    }

    @Test("Text that is not JSON fails with dataCorrupted whose underlying error is the WireError")
    func parseFailure() throws {
        let error = try #require(throws: DecodingError.self) { try decoder.decode([Int].self, from: "[1,]") }
        guard case .dataCorrupted(let context) = error else {
            Issue.record("expected dataCorrupted, got \(error)")
            return
        }
        #expect(context.codingPath.isEmpty)
        let wireError = try #require(context.underlyingError as? WireError)
        #expect(wireError.location?.offset == 3)
        #expect(throws: DecodingError.self) { try decoder.decode([Int].self, from: Array("{".utf8)) }
    }

    // MARK: Scalars

    @Test("Integers decode from exact doubles but not from fractions, booleans or strings")
    func integerSources() throws {
        #expect(try decoder.decode(Int.self, from: .double(3.0)) == 3)
        #expect(try decoder.decode(UInt8.self, from: .double(255)) == 255)
        for bad: JSONValue in [.double(3.5), .double(1e30), 256] {
            #expect(throws: DecodingError.self) { try decoder.decode(UInt8.self, from: bad) }
        }
        let boolError = try #require(throws: DecodingError.self) { try decoder.decode(Int.self, from: true) }
        guard case .typeMismatch = boolError else {
            Issue.record("expected typeMismatch, got \(boolError)")
            return
        }
        #expect(throws: DecodingError.self) { try decoder.decode(Int.self, from: .string("1")) }
    }

    @Test("Every integer width is range-checked at both ends")
    func integerRanges() throws {
        try checkRange(Int8.self)
        try checkRange(Int16.self)
        try checkRange(Int32.self)
        try checkRange(UInt8.self)
        try checkRange(UInt16.self)
        try checkRange(UInt32.self)
        #expect(try decoder.decode(Int64.self, from: .integer(.min)) == .min)
        #expect(try decoder.decode(UInt64.self, from: .integer(.max)) == UInt64(Int64.max))
        #expect(throws: DecodingError.self) { try decoder.decode(UInt64.self, from: -1) }
        #expect(throws: DecodingError.self) { try decoder.decode(UInt.self, from: -1) }
        #expect(try decoder.decode(UInt64.self, from: .double(1e19)) == 10_000_000_000_000_000_000)
        #expect(try decoder.decode(Int128.self, from: -5) == -5)
        #expect(try decoder.decode(UInt128.self, from: .double(1e20)) == 100_000_000_000_000_000_000)
    }

    private func checkRange<Integer: FixedWidthInteger & Decodable>(_ type: Integer.Type) throws {
        #expect(try decoder.decode(Integer.self, from: .integer(Int64(Integer.max))) == .max)
        #expect(try decoder.decode(Integer.self, from: .integer(Int64(Integer.min))) == .min)
        #expect(throws: DecodingError.self) { try decoder.decode(Integer.self, from: .integer(Int64(Integer.max) + 1)) }
        #expect(throws: DecodingError.self) { try decoder.decode(Integer.self, from: .integer(Int64(Integer.min) - 1)) }
    }

    @Test("Floating-point types accept integers and doubles, and Float rejects numbers beyond its range")
    func floatingPointSources() throws {
        #expect(try decoder.decode(Double.self, from: 7) == 7.0)
        #expect(try decoder.decode(Double.self, from: 0.25) == 0.25)
        #expect(try decoder.decode(Float.self, from: 0.1) == Float(0.1))
        #expect(try decoder.decode(Float.self, from: 3) == 3)
        #expect(throws: DecodingError.self) { try decoder.decode(Float.self, from: 1e300) }
        #expect(throws: DecodingError.self) { try decoder.decode(Double.self, from: .string("1.5")) }
        #expect(throws: DecodingError.self) { try decoder.decode(Double.self, from: .string("Infinity")) }
    }

    @Test("Floats at the edges of their range survive encoding, writing, parsing and decoding")
    func floatExtremes() throws {
        let floats: [Float] = [.greatestFiniteMagnitude, -.greatestFiniteMagnitude, .leastNonzeroMagnitude,
                               .leastNormalMagnitude, 0.1, -0.0, 16_777_216, 3.4e-38]
        let text = try JSONValueEncoder().encodeToString(floats)
        let decoded = try decoder.decode([Float].self, from: text)
        #expect(decoded.map(\.bitPattern) == floats.map(\.bitPattern))
        #expect(throws: DecodingError.self) { try decoder.decode(Float.self, from: .double(3.5e38)) }
    }

    @Test("Booleans decode only from booleans and strings only from strings")
    func strictKinds() throws {
        #expect(try decoder.decode(Bool.self, from: true) == true)
        #expect(throws: DecodingError.self) { try decoder.decode(Bool.self, from: 1) }
        #expect(throws: DecodingError.self) { try decoder.decode(Bool.self, from: .string("true")) }
        #expect(try decoder.decode(String.self, from: .string("s")) == "s")
        #expect(throws: DecodingError.self) { try decoder.decode(String.self, from: 1) }
        #expect(throws: DecodingError.self) { try decoder.decode(String.self, from: nil) }
    }

    @Test("Non-finite numbers decode from the configured strings")
    func nonConformingFloats() throws {
        var custom = JSONValueDecoder()
        custom.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        let values = try custom.decode([Double].self, from: ["inf", "-inf", "nan", 1])
        #expect(values[0] == .infinity)
        #expect(values[1] == -.infinity)
        #expect(values[2].isNaN)
        #expect(values[3] == 1)
        #expect(try custom.decode(Float.self, from: .string("inf")) == .infinity)
        #expect(throws: DecodingError.self) { try custom.decode(Double.self, from: .string("other")) }
    }

    // MARK: Optionals

    @Test("Optionals are nil for missing keys and null, and still reject the wrong kind")
    func optionals() throws {
        #expect(try decoder.decode(Optionals.self, from: [:]) == Optionals())
        #expect(try decoder.decode(Optionals.self, from: ["a": nil, "b": nil, "c": nil]) == Optionals())
        #expect(try decoder.decode(Optionals.self, from: ["a": 1, "b": "x", "c": ["x": 2]])
            == Optionals(a: 1, b: "x", c: Point(x: 2)))
        let error = try #require(throws: DecodingError.self) { try decoder.decode(Optionals.self, from: ["b": 5]) }
        guard case .typeMismatch(_, let context) = error else {
            Issue.record("expected typeMismatch, got \(error)")
            return
        }
        #expect(describe(context.codingPath) == ["b"])
        #expect(try decoder.decode([Int?].self, from: [1, nil, 3]) == [1, nil, 3])
    }

    // MARK: Strategies

    @Test("Dates follow each date decoding strategy")
    func dateStrategies() throws {
        var custom = JSONValueDecoder()
        #expect(try custom.decode(Date.self, from: 0) == Date(timeIntervalSinceReferenceDate: 0))
        custom.dateDecodingStrategy = .secondsSince1970
        #expect(try custom.decode(Date.self, from: 1_700_000_000) == Date(timeIntervalSince1970: 1_700_000_000))
        custom.dateDecodingStrategy = .millisecondsSince1970
        #expect(try custom.decode(Date.self, from: 1_500) == Date(timeIntervalSince1970: 1.5))
        custom.dateDecodingStrategy = .iso8601
        #expect(try custom.decode(Date.self, from: .string("2023-11-14T22:13:20Z")) == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(try custom.decode(Date.self, from: .string("2023-11-15T00:13:20+02:00")) == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(try custom.decode(Date.self, from: .string("1969-12-31t23:59:59.25z")) == Date(timeIntervalSince1970: -0.75))
        for bad: JSONValue in ["2023-02-29T00:00:00Z", "2023-11-14 22:13:20Z", "2023-11-14T22:13:20", "x", 5] {
            #expect(throws: DecodingError.self) { try custom.decode(Date.self, from: bad) }
        }
        custom.dateDecodingStrategy = .custom { decoder in
            let days = try decoder.singleValueContainer().decode(Int.self)
            return Date(timeIntervalSince1970: Double(days) * 86_400)
        }
        #expect(try custom.decode([String: Date].self, from: ["d": 2]) == ["d": Date(timeIntervalSince1970: 172_800)])
    }

    @Test("Data follows each data decoding strategy and rejects text that is not base64")
    func dataStrategies() throws {
        var custom = JSONValueDecoder()
        #expect(try custom.decode(Data.self, from: .string("AQID/w==")) == Data([1, 2, 3, 255]))
        let error = try #require(throws: DecodingError.self) { try custom.decode([Data].self, from: ["%%%"]) }
        guard case .dataCorrupted(let context) = error else {
            Issue.record("expected dataCorrupted, got \(error)")
            return
        }
        #expect(describe(context.codingPath) == ["Index 0"])
        custom.dataDecodingStrategy = .deferredToData
        #expect(try custom.decode(Data.self, from: [1, 2] as JSONValue) == Data([1, 2]))
        custom.dataDecodingStrategy = .custom { decoder in
            Data(repeating: 7, count: try decoder.singleValueContainer().decode(Int.self))
        }
        #expect(try custom.decode(Data.self, from: 3) == Data([7, 7, 7]))
    }

    @Test("URLs decode from strings and Decimals from numbers")
    func urlsAndDecimals() throws {
        #expect(try decoder.decode(URL.self, from: .string("https://example.com/x?y=1")) == URL(string: "https://example.com/x?y=1"))
        #expect(throws: DecodingError.self) { try decoder.decode(URL.self, from: 5) }
        #expect(try decoder.decode(Decimal.self, from: 0.1) == Decimal(string: "0.1"))
        #expect(try decoder.decode(Decimal.self, from: 12) == Decimal(12))
        #expect(throws: DecodingError.self) { try decoder.decode(Decimal.self, from: .string("12")) }
    }

    @Test("Snake-case keys match camel-case coding keys, but dictionary keys stay as written")
    func snakeCaseKeys() throws {
        var custom = JSONValueDecoder()
        custom.keyDecodingStrategy = .convertFromSnakeCase
        let value: JSONValue = ["first_name": "A", "home_url": "u", "_private_id": 3, "plain": true, "tag_map": ["some_key": 1]]
        let decoded = try custom.decode(SnakeModel.self, from: value)
        #expect(decoded == SnakeModel(firstName: "A", homeUrl: "u", _privateId: 3, plain: true, tagMap: ["some_key": 1]))
        let error = try #require(throws: DecodingError.self) { try custom.decode(SnakeModel.self, from: ["first_name": "A"]) }
        guard case .keyNotFound(let key, _) = error else {
            Issue.record("expected keyNotFound, got \(error)")
            return
        }
        #expect(key.stringValue == "homeUrl")
    }

    @Test("A custom key strategy maps each object key with its full path")
    func customKeyStrategy() throws {
        var custom = JSONValueDecoder()
        custom.keyDecodingStrategy = .custom { path in
            AnyKey(stringValue: (path.last?.stringValue ?? "").lowercased())
        }
        #expect(try custom.decode(Point.self, from: ["X": 4]) == Point(x: 4))
        var seen = JSONValueDecoder()
        let recorder = KeyPathRecorder()
        seen.keyDecodingStrategy = .custom { path in
            recorder.record(path.map(\.stringValue))
            return path[path.count - 1]
        }
        _ = try seen.decode(Listing.self, from: ["items": [["x": 1]]])
        #expect(recorder.paths == [["items"], ["items", "Index 0", "x"]])
    }

    @Test("Decoders and containers see the user info")
    func userInfo() throws {
        var custom = JSONValueDecoder()
        let key = try #require(CodingUserInfoKey(rawValue: "factor"))
        custom.userInfo[key] = 10
        #expect(try custom.decode(Scaled.self, from: 4).value == 40)
    }

    // MARK: Containers

    @Test("Nested containers, decodeNil, contains and allKeys report the object's contents")
    func containerOperations() throws {
        let value: JSONValue = ["meta": ["kind": "m", "tags": ["x", nil]], "rows": [["n": 1], [true]], "gone": nil]
        let decoded = try decoder.decode(ManualReader.self, from: value)
        #expect(decoded.kind == "m")
        #expect(decoded.tags == ["x"])
        #expect(decoded.sawNilTag)
        #expect(decoded.n == 1)
        #expect(decoded.flag)
        #expect(decoded.allKeys == ["meta", "rows", "gone"])
        #expect(decoded.containsGone && !decoded.containsMissing)
        #expect(decoded.goneIsNil)
        #expect(decoded.paths == [["meta"], ["meta", "tags"], ["rows", "Index 0"], ["rows", "Index 1"]])
    }

    @Test("Super decoders read super, a chosen key, or the next element, and null when absent")
    func superDecoders() throws {
        let derived = try decoder.decode(DerivedShape.self, from: ["sides": 4, "super": ["name": "square"]])
        #expect(derived.sides == 4 && derived.name == "square")
        let byKey = try decoder.decode(SuperByKey.self, from: ["parent": ["p": 9]])
        #expect(byKey.parent == 9 && byKey.missingIsNull && byKey.path == ["missing"])
        let unkeyed = try decoder.decode(UnkeyedSuperReader.self, from: [1, ["p": 2], 3])
        #expect(unkeyed.values == [1, 2, 3])
        #expect(unkeyed.superPath == ["Index 1"])
        let absent = try decoder.decode(NoSuperReader.self, from: [:])
        #expect(absent.superIsNull)
    }

    @Test("Coding paths seen inside init(from:) match the position of the value")
    func codingPathsSeenByValues() throws {
        let value: JSONValue = ["a": [["b": 0], ["b": 0]], "c": ["b": 0]]
        let decoded = try decoder.decode([String: PathProbeList].self, from: ["root": value])
        #expect(decoded["root"]?.paths == [["root", "a", "Index 0"], ["root", "a", "Index 1"], ["root", "c"]])
        #expect(decoded["root"]?.containerPaths == [["root", "a", "Index 0"], ["root", "a", "Index 1"], ["root", "c"]])
    }

    @Test("Fields decode in any order and from objects large enough to be indexed")
    func keyOrderAndLargeObjects() throws {
        let reversed: JSONValue = ["y": 2, "x": 1]
        #expect(try decoder.decode(Coordinates.self, from: reversed) == Coordinates(x: 1, y: 2))
        var object = JSONObject()
        for index in 0..<30 {
            object["k\(index)"] = .integer(Int64(index))
        }
        object["y"] = 20
        object["x"] = 10
        #expect(try decoder.decode(Coordinates.self, from: .object(object)) == Coordinates(x: 10, y: 20))
        #expect(try decoder.decode([String: Int].self, from: .object(object)).count == 32)
    }

    @Test("Object keys are matched byte for byte, not by canonical equivalence")
    func keysMatchedByBytes() throws {
        #expect(throws: DecodingError.self) { try decoder.decode(AccentKey.self, from: ["e\u{301}": 1]) }
        #expect(try decoder.decode(AccentKey.self, from: ["\u{E9}": 1]).value == 1)
    }

    // MARK: JSON values and round trips

    @Test("A JSONValue is handed over by the decoder unchanged")
    func jsonValuePassThrough() throws {
        let value: JSONValue = ["a": [1, 2.5, nil, "x"], "b": ["c": .double(1.0)]]
        #expect(try decoder.decode(JSONValue.self, from: value) == value)
        let holder = try decoder.decode(PayloadHolder.self, from: ["payload": value, "id": 1])
        #expect(holder.payload == value)
        #expect(holder.payload["b"]?["c"] == .double(1.0))
    }

    @Test("Decoding from text and from bytes gives the same result as from the tree")
    func decodeFromText() throws {
        let text = #"{"items":[{"x":1},{"x":2}]}"#
        let expected = Listing(items: [Point(x: 1), Point(x: 2)])
        #expect(try decoder.decode(Listing.self, from: text) == expected)
        #expect(try decoder.decode(Listing.self, from: Array(text.utf8)) == expected)
    }

    @Test("A rich model survives encoding and decoding unchanged")
    func richRoundTrip() throws {
        let model = RichModel.sample
        let encoder = JSONValueEncoder()
        let tree = try encoder.encode(model)
        #expect(try decoder.decode(RichModel.self, from: tree) == model)
        let bytes = try encoder.encodeToBytes(model)
        #expect(try decoder.decode(RichModel.self, from: bytes) == model)

        var empty = model
        empty.optionalText = nil
        empty.optionalNumbers = nil
        empty.shapes = []
        #expect(try decoder.decode(RichModel.self, from: encoder.encode(empty)) == empty)
    }

    @Test("A rich model survives every date and data strategy and snake-case keys")
    func richRoundTripWithStrategies() throws {
        var encoder = JSONValueEncoder()
        var decoder = JSONValueDecoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        encoder.dataEncodingStrategy = .deferredToData
        decoder.dataDecodingStrategy = .deferredToData
        let pairs: [(JSONValueEncoder.DateEncodingStrategy, JSONValueDecoder.DateDecodingStrategy)] = [
            (.deferredToDate, .deferredToDate), (.secondsSince1970, .secondsSince1970),
            (.millisecondsSince1970, .millisecondsSince1970), (.iso8601, .iso8601),
        ]
        for (encoding, decoding) in pairs {
            encoder.dateEncodingStrategy = encoding
            decoder.dateDecodingStrategy = decoding
            #expect(try decoder.decode(RichModel.self, from: encoder.encode(RichModel.sample)) == RichModel.sample)
        }
    }

    @Test("Values encoded by Foundation's JSONEncoder decode like our own output")
    func foundationInterop() throws {
        let data = try JSONEncoder().encode(RichModel.sample)
        #expect(try decoder.decode(RichModel.self, from: [UInt8](data)) == RichModel.sample)
    }
}

// MARK: - Models

private struct Point: Codable, Equatable {
    var x: Int
}

private struct Listing: Codable, Equatable {
    var items: [Point]
}

private struct Coordinates: Codable, Equatable {
    var x: Int
    var y: Int
}

private struct Pair: Decodable {
    var first: Int
    var second: Int

    enum Keys: String, CodingKey { case p }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        var pair = try container.nestedUnkeyedContainer(forKey: .p)
        first = try pair.decode(Int.self)
        second = try pair.decode(Int.self)
    }
}

private struct Optionals: Codable, Equatable {
    var a: Int?
    var b: String?
    var c: Point?
}

private struct SnakeModel: Codable, Equatable {
    var firstName: String
    var homeUrl: String
    var _privateId: Int
    var plain: Bool
    var tagMap: [String: Int]
}

private struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }

    init(stringValue: String) {
        self.stringValue = stringValue
    }

    init?(intValue: Int) {
        nil
    }
}

private final class KeyPathRecorder: @unchecked Sendable {
    private(set) var paths: [[String]] = []

    func record(_ path: [String]) {
        paths.append(path)
    }
}

private struct Scaled: Decodable {
    var value: Int

    init(from decoder: any Decoder) throws {
        let factor = decoder.userInfo.first { $0.key.rawValue == "factor" }?.value as? Int ?? 1
        value = try decoder.singleValueContainer().decode(Int.self) * factor
    }
}

private struct ManualReader: Decodable {
    var kind = ""
    var tags: [String] = []
    var sawNilTag = false
    var n = 0
    var flag = false
    var allKeys: [String] = []
    var containsGone = false
    var containsMissing = true
    var goneIsNil = false
    var paths: [[String]] = []

    enum Keys: String, CodingKey { case meta, rows, kind, tags, n, gone, missing }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        allKeys = container.allKeys.map(\.stringValue)
        containsGone = container.contains(.gone)
        containsMissing = container.contains(.missing)
        goneIsNil = try container.decodeNil(forKey: .gone)
        let meta = try container.nestedContainer(keyedBy: Keys.self, forKey: .meta)
        paths.append(describe(meta.codingPath))
        kind = try meta.decode(String.self, forKey: .kind)
        var tagList = try meta.nestedUnkeyedContainer(forKey: .tags)
        paths.append(describe(tagList.codingPath))
        while !tagList.isAtEnd {
            if try tagList.decodeNil() {
                sawNilTag = true
            } else {
                tags.append(try tagList.decode(String.self))
            }
        }
        var rows = try container.nestedUnkeyedContainer(forKey: .rows)
        let first = try rows.nestedContainer(keyedBy: Keys.self)
        paths.append(describe(first.codingPath))
        n = try first.decode(Int.self, forKey: .n)
        var second = try rows.nestedUnkeyedContainer()
        paths.append(describe(second.codingPath))
        flag = try second.decode(Bool.self)
    }
}

private class BaseShape: Decodable {
    var name: String

    enum BaseKeys: String, CodingKey { case name }

    required init(from decoder: any Decoder) throws {
        name = try decoder.container(keyedBy: BaseKeys.self).decode(String.self, forKey: .name)
    }
}

private final class DerivedShape: BaseShape {
    var sides: Int

    enum DerivedKeys: String, CodingKey { case sides }

    required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: DerivedKeys.self)
        sides = try container.decode(Int.self, forKey: .sides)
        try super.init(from: container.superDecoder())
    }
}

private struct ParentPart: Decodable {
    var p: Int
}

private struct SuperByKey: Decodable {
    var parent: Int
    var missingIsNull: Bool
    var path: [String]

    enum Keys: String, CodingKey { case parent, missing }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        parent = try ParentPart(from: container.superDecoder(forKey: .parent)).p
        let missing = try container.superDecoder(forKey: .missing)
        missingIsNull = try missing.singleValueContainer().decodeNil()
        path = describe(missing.codingPath)
    }
}

private struct UnkeyedSuperReader: Decodable {
    var values: [Int] = []
    var superPath: [String] = []

    init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        values.append(try container.decode(Int.self))
        let superDecoder = try container.superDecoder()
        superPath = describe(superDecoder.codingPath)
        values.append(try ParentPart(from: superDecoder).p)
        values.append(try container.decode(Int.self))
    }
}

private struct NoSuperReader: Decodable {
    var superIsNull: Bool

    enum Keys: CodingKey {}

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        superIsNull = try container.superDecoder().singleValueContainer().decodeNil()
    }
}

private struct PathProbe: Decodable {
    var path: [String]
    var containerPath: [String]

    enum Keys: String, CodingKey { case b }

    init(from decoder: any Decoder) throws {
        path = describe(decoder.codingPath)
        let container = try decoder.container(keyedBy: Keys.self)
        containerPath = describe(container.codingPath)
        _ = try container.decode(Int.self, forKey: .b)
    }
}

private struct PathProbeList: Decodable {
    var paths: [[String]]
    var containerPaths: [[String]]

    enum Keys: String, CodingKey { case a, c }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        let list = try container.decode([PathProbe].self, forKey: .a)
        let single = try container.decode(PathProbe.self, forKey: .c)
        paths = list.map(\.path) + [single.path]
        containerPaths = list.map(\.containerPath) + [single.containerPath]
    }
}

private struct AccentKey: Decodable {
    var value: Int

    enum CodingKeys: String, CodingKey {
        case value = "\u{E9}"
    }
}

private struct PayloadHolder: Codable {
    var payload: JSONValue
    var id: Int
}

private enum Shape: Codable, Equatable {
    case circle(radius: Double)
    case polygon(sides: Int, label: String?)
    case point
}

private enum Color: String, Codable, Hashable {
    case red, green
}

private struct RichModel: Codable, Equatable {
    var title: String
    var count: Int
    var ratio: Double
    var smallNumbers: [Int8]
    var optionalText: String?
    var optionalNumbers: [Int]?
    var shapes: [Shape]
    var byNumber: [Int: String]
    var byColor: [Color: Int]
    var created: Date
    var blob: Data
    var link: URL
    var price: Decimal
    var nested: [[String: [Double]]]
    var extra: JSONValue
    var flags: Set<String>

    static let sample = RichModel(
        title: "Report \"Q3\" – naïve 🎉",
        count: -42,
        ratio: 0.1 + 0.2,
        smallNumbers: [-128, 0, 127],
        optionalText: "present",
        optionalNumbers: [1, 2, 3],
        shapes: [.circle(radius: 2.5), .polygon(sides: 6, label: nil), .polygon(sides: 3, label: "tri"), .point],
        byNumber: [1: "one", -2: "minus two"],
        byColor: [.red: 1, .green: 2],
        created: Date(timeIntervalSince1970: 1_700_000_000),
        blob: Data([0, 1, 2, 250, 255]),
        link: URL(string: "https://example.com/path?q=1#frag") ?? URL(fileURLWithPath: "/"),
        price: Decimal(string: "19.99") ?? 0,
        nested: [["a": [1.5, -0.0]], [:]],
        extra: ["free": [1, "form", nil, ["x": 1.25]]],
        flags: ["a", "b"])
}

/// The string values of a coding path.
private func describe(_ path: [any CodingKey]) -> [String] {
    path.map(\.stringValue)
}
