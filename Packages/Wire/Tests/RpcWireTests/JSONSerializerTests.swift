import RpcWire
import Testing

@Suite("JSON serializer")
struct JSONSerializerTests {
    private func text(_ value: JSONValue, canonical: Bool = false) throws -> String {
        try JSONSerializer(configuration: .init(canonical: canonical)).string(value)
    }

    private func text(_ number: Double) throws -> String {
        try text(.double(number))
    }

    // MARK: Scalars

    @Test("Scalars are written in compact form without a trailing newline")
    func scalars() throws {
        #expect(try text(.null) == "null")
        #expect(try text(.bool(true)) == "true")
        #expect(try text(.bool(false)) == "false")
        #expect(try text(.string("")) == #""""#)
        #expect(try JSONSerializer().serialize(.null) == Array("null".utf8))
    }

    @Test("Integers are written in decimal, including the extremes of Int64")
    func integers() throws {
        let cases: [(Int64, String)] = [
            (0, "0"), (7, "7"), (-1, "-1"), (10, "10"), (-10, "-10"), (1234567890, "1234567890"),
            (Int64.max, "9223372036854775807"), (Int64.min, "-9223372036854775808"),
        ]
        for (value, expected) in cases {
            #expect(try text(.integer(value)) == expected)
        }
    }

    @Test("Doubles are laid out as JavaScript's Number::toString lays them out")
    func doubleLayouts() throws {
        // Outputs of JSON.stringify for the same numbers.
        let cases: [(Double, String)] = [
            (100.0, "100"), (1e20, "100000000000000000000"), (1e21, "1e+21"), (1e22, "1e+22"),
            (1.5e-7, "1.5e-7"), (1e-7, "1e-7"), (0.000001, "0.000001"), (0.0000012, "0.0000012"),
            (0.000025, "0.000025"), (123.456, "123.456"), (0.1 + 0.2, "0.30000000000000004"),
            (0.5, "0.5"), (-1.5, "-1.5"), (4.35, "4.35"), (1e300, "1e+300"), (1.5e300, "1.5e+300"),
            (-1e-7, "-1e-7"), (Double.leastNonzeroMagnitude, "5e-324"), (2.2250738585072014e-308, "2.2250738585072014e-308"),
            (Double.greatestFiniteMagnitude, "1.7976931348623157e+308"),
            (9_007_199_254_740_992, "9007199254740992"), (9_007_199_254_740_994, "9007199254740994"),
            // The one departure: integral values below 2^63 are written exactly (JavaScript
            // writes 1152921504606847000, which an exact reader would take for another integer).
            (1_152_921_504_606_846_976, "1152921504606846976"),
            (123_456_789_012_345_683_968, "123456789012345680000"),
            (999_999_999_999_999_868_928, "999999999999999900000"),
            (1e16, "10000000000000000"), (-1e16, "-10000000000000000"), (1.25e15, "1250000000000000"),
            (3.0, "3"), (-3.0, "-3"), (0.1, "0.1"), (1.0 / 3.0, "0.3333333333333333"),
            (12345.6789e-10, "0.00000123456789"), (1.2345e-7, "1.2345e-7"), (2.5e21, "2.5e+21"),
        ]
        for (value, expected) in cases {
            #expect(try text(value) == expected, "writing \(value)")
        }
    }

    @Test(
        "Integral doubles between 2^53 and 2^63 read back as the same number",
        arguments: [-90_071_992_547_409_930.0, 1_152_921_504_606_846_976, 9.2e18, -9.223372036854775808e18, 1.7e19]
    )
    func largeIntegralDoublesRoundTrip(value: Double) throws {
        let written = try text(value)
        let reread = try JSONValue(parsing: written)
        #expect(reread.doubleValue == value, "\(value) was written \(written)")
        if let integer = reread.int64Value, case .integer = reread {
            #expect(Double(exactly: integer) == value, "\(written) read back as the integer \(integer)")
        }
    }

    @Test("Negative zero keeps its sign and positive zero is written 0")
    func signedZero() throws {
        #expect(try text(-0.0) == "-0")
        #expect(try text(0.0) == "0")
    }

    @Test("Non-finite doubles fail with nonFiniteNumber and write nothing")
    func nonFiniteNumbers() {
        for value in [Double.infinity, -Double.infinity, Double.nan] {
            #expect(throws: WireError.self) { try JSONSerializer().serialize(.double(value)) }
            do {
                _ = try JSONSerializer().serialize(.array([1, .double(value)]))
                Issue.record("expected a failure for \(value)")
            } catch {
                #expect(error.code == .nonFiniteNumber)
            }
            var writer = JSONWriter()
            #expect(throws: WireError.self) { try writer.writeDouble(value) }
            #expect(writer.bytes.isEmpty)
        }
    }

    @Test("Random doubles read back with identical bits and with the shortest digits")
    func randomDoublesRoundTrip() throws {
        var generator = SplitMix64(seed: 0x5EED_1234)
        var checked = 0
        while checked < 20_000 {
            let bits = generator.next()
            let value = Double(bitPattern: bits)
            guard value.isFinite else { continue }
            checked += 1
            let written = try text(value)
            guard let reread = Double(written) else {
                Issue.record("unreadable output \(written) for bits \(bits)")
                return
            }
            #expect(reread.bitPattern == value.bitPattern, "bits \(bits) wrote \(written)")
            if value.magnitude >= 9_007_199_254_740_992, value.magnitude < 9_223_372_036_854_775_808,
                value == value.rounded(.towardZero)
            {
                // Written as the exact integer rather than the shortest digits (see writeDouble).
                #expect(Int64(written) == Int64(value), "bits \(bits) wrote \(written)")
            } else {
                #expect(significantDigits(of: written) == significantDigits(of: value.description), "bits \(bits)")
            }
        }
    }

    @Test("Random integral doubles, small and large, read back with identical bits")
    func randomIntegralDoublesRoundTrip() throws {
        var generator = SplitMix64(seed: 42)
        for _ in 0..<20_000 {
            let magnitude = Double(generator.next() >> (generator.next() % 64))
            for value in [magnitude, -magnitude, magnitude * 1024, magnitude / 1024] {
                let written = try text(value)
                #expect(Double(written)?.bitPattern == value.bitPattern, "wrote \(written) for \(value)")
                if value.magnitude < 1e21, value == value.rounded() {
                    #expect(!written.contains(".") && !written.contains("e"), "integral \(value) wrote \(written)")
                }
            }
        }
    }

    @Test("Parsing and writing numbers again gives the same text")
    func numberTextIdentity() throws {
        let document = "[-0,0,1e+21,1.5e-7,0.000001,123.456,9007199254740993,-9223372036854775808,5e-324]"
        let parsed = try JSONValue(parsing: document)
        #expect(try text(parsed) == document)
    }

    // MARK: Strings

    @Test("Quotes, backslashes and control characters are escaped the way JSON.stringify escapes them")
    func stringEscapes() throws {
        #expect(try text("a\"b\\c") == #""a\"b\\c""#)
        #expect(try text("\u{8}\u{C}\n\r\t") == #""\b\f\n\r\t""#)
        #expect(try text("\u{0}\u{1}\u{1F}\u{1B}") == #""\u0000\u0001\u001f\u001b""#)
        #expect(try text("x\u{7F}y") == "\"x\u{7F}y\"")
    }

    @Test("Slash, line and paragraph separators and non-ASCII text are written as raw UTF-8")
    func rawUTF8() throws {
        let raw = "/ \u{2028}\u{2029} é 日本語 🎉 \u{FEFF}"
        #expect(try JSONSerializer().serialize(.string(raw)) == Array("\"\(raw)\"".utf8))
    }

    @Test("Escapes are found at every offset around the eight-byte scanning boundary")
    func escapesAtEveryOffset() throws {
        for length in 0..<40 {
            for position in 0..<max(length, 1) {
                for special in ["\"", "\\", "\n", "\u{1}", "é", "\u{1F}"] {
                    var characters = Array(repeating: "a", count: length)
                    if position < length {
                        characters[position] = special
                    }
                    let string = characters.joined()
                    #expect(try text(.string(string)) == referenceQuoted(string), "length \(length) position \(position)")
                }
            }
        }
    }

    @Test("Random strings are escaped exactly as a scalar-by-scalar reference escapes them")
    func randomStrings() throws {
        var generator = SplitMix64(seed: 7)
        let alphabet: [Unicode.Scalar] = ["a", "Z", "0", " ", "\"", "\\", "/", "\n", "\t", "\u{0}", "\u{1F}",
                                          "\u{7F}", "é", "\u{2028}", "日", "🎉", "\u{FFFF}", "\u{10FFFF}"]
        for _ in 0..<2_000 {
            var scalars = String.UnicodeScalarView()
            for _ in 0..<Int(generator.next() % 64) {
                scalars.append(alphabet[Int(generator.next() % UInt64(alphabet.count))])
            }
            let string = String(scalars)
            #expect(try text(.string(string)) == referenceQuoted(string))
        }
    }

    @Test("Strings not stored contiguously are escaped like native ones")
    func bridgedLikeStrings() throws {
        let string = String(repeating: "ab\"c\u{1}é", count: 30)
        let sliced = String(Substring(string.dropFirst(2)))
        #expect(try text(.string(sliced)) == referenceQuoted(sliced))
    }

    // MARK: Containers

    @Test("Arrays and objects are written compactly with members in stored order")
    func containers() throws {
        let value: JSONValue = ["b": [1, 2.5, "x", nil, true], "a": [:], "c": []]
        #expect(try text(value) == #"{"b":[1,2.5,"x",null,true],"a":{},"c":[]}"#)
    }

    @Test("Canonical mode sorts keys by UTF-16 code units at every level")
    func canonicalOrder() throws {
        let keys = ["b", "a", "\u{E000}", "😀", "aa", "", "B", "é", "\u{FFFF}", "\u{D7FF}"]
        let object = JSONObject(keys.map { ($0, JSONValue.string($0)) })
        let nested: JSONValue = ["z": .object(object), "y": [.object(object)]]
        let expectedKeys = keys.sorted { $0.utf16.lexicographicallyPrecedes($1.utf16) }
        // The supplementary character sorts before U+E000 and U+FFFF, unlike code point order.
        let emojiPosition = try #require(expectedKeys.firstIndex(of: "😀"))
        let privateUsePosition = try #require(expectedKeys.firstIndex(of: "\u{E000}"))
        #expect(emojiPosition < privateUsePosition)
        let inner = "{" + expectedKeys.map { "\(referenceQuoted($0)):\(referenceQuoted($0))" }.joined(separator: ",") + "}"
        #expect(try text(nested, canonical: true) == #"{"y":["# + inner + #"],"z":"# + inner + "}")
        #expect(try text(nested, canonical: false).hasPrefix(#"{"z":{"b":"#))
    }

    @Test("Canonical output is the same for objects that are equal in any member order")
    func canonicalIsOrderIndependent() throws {
        let first: JSONValue = ["x": 1, "y": ["p": true, "q": nil]]
        let second: JSONValue = ["y": ["q": nil, "p": true], "x": 1]
        #expect(first == second)
        #expect(try first.serialized(canonical: true) == second.serialized(canonical: true))
        #expect(try first.serialized() != second.serialized())
    }

    @Test("Nesting up to maxDepth is written and one level more fails with depthLimitExceeded")
    func depthLimit() throws {
        func nested(_ depth: Int) -> JSONValue {
            var value: JSONValue = 1
            for level in 0..<depth {
                value = level.isMultiple(of: 2) ? [value] : ["k": value]
            }
            return value
        }
        #expect(try JSONSerializer().serialize(nested(256)).count > 0)
        do {
            _ = try JSONSerializer().serialize(nested(257))
            Issue.record("expected depthLimitExceeded")
        } catch {
            #expect(error.code == .depthLimitExceeded)
        }
        let shallow = JSONSerializer(configuration: .init(maxDepth: 2))
        #expect(try shallow.string([[1]]) == "[[1]]")
        #expect(throws: WireError.self) { try shallow.serialize([[[1]]]) }
        #expect(throws: WireError.self) { try shallow.serialize([["k": [:]]]) }
        #expect(try JSONSerializer(configuration: .init(maxDepth: 0)).string(5) == "5")
    }

    @Test("Serializing into a buffer appends, and leaves the buffer unchanged on failure")
    func serializeInto() throws {
        var buffer = Array("prefix:".utf8)
        try JSONSerializer().serialize(["a", 1], into: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self) == #"prefix:["a",1]"#)
        let before = buffer
        #expect(throws: WireError.self) { try JSONSerializer().serialize([1, 2, .double(.nan)], into: &buffer) }
        #expect(buffer == before)
    }

    @Test("The default configuration keeps stored order and allows 256 levels")
    func defaultConfiguration() {
        #expect(JSONSerializer.Configuration.default.canonical == false)
        #expect(JSONSerializer.Configuration.default.maxDepth == 256)
        #expect(JSONSerializer().configuration == .default)
    }

    // MARK: Writer

    @Test("The writer builds a message piece by piece without a JSON value")
    func writerPieces() throws {
        var writer = JSONWriter(reservingCapacity: 32)
        writer.writeRaw("[")
        writer.writeString("push")
        writer.writeRaw(UInt8(ascii: ","))
        writer.writeRaw("[")
        writer.writeString("pipeline")
        writer.writeRaw(",")
        writer.writeInteger(-12)
        writer.writeRaw(",")
        try writer.writeDouble(0.25)
        writer.writeRaw(",")
        writer.writeBool(false)
        writer.writeRaw(",")
        writer.writeNull()
        writer.writeRaw(",")
        try writer.write(["k": ["a\nb"]])
        writer.writeRaw("]]")
        #expect(String(decoding: writer.bytes, as: UTF8.self) == #"["push",["pipeline",-12,0.25,false,null,{"k":["a\nb"]}]]"#)
    }

    @Test("A writer can continue an existing buffer")
    func writerAppends() {
        var writer = JSONWriter(appendingTo: Array("x=".utf8))
        writer.writeInteger(5)
        #expect(writer.bytes == Array("x=5".utf8))
    }

    @Test("Parsed documents are written back byte for byte when they were compact")
    func parseWriteIdentity() throws {
        let document = #"{"id":12345,"name":"caf\u00e9 \"q\"","list":[true,false,null,-1.5e-7,[],{}],"é":"日本","n":-0}"#
        let parsed = try JSONValue(parsing: document)
        let written = try text(parsed)
        #expect(try JSONValue(parsing: written) == parsed)
        #expect(written == #"{"id":12345,"name":"café \"q\"","list":[true,false,null,-1.5e-7,[],{}],"é":"日本","n":-0}"#)
    }
}

// MARK: - Helpers

/// The quoted JSON form of a string, built one scalar at a time.
private func referenceQuoted(_ string: String) -> String {
    var result = "\""
    for scalar in string.unicodeScalars {
        switch scalar {
        case "\"": result += "\\\""
        case "\\": result += "\\\\"
        case "\u{8}": result += "\\b"
        case "\u{C}": result += "\\f"
        case "\n": result += "\\n"
        case "\r": result += "\\r"
        case "\t": result += "\\t"
        case "\u{0}"..."\u{1F}":
            let hex = String(scalar.value, radix: 16)
            result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        default:
            result.unicodeScalars.append(scalar)
        }
    }
    return result + "\""
}

/// The significant digits of a number's text, without sign, point, exponent or padding zeros.
private func significantDigits(of text: String) -> String {
    let mantissa = text.split(whereSeparator: { $0 == "e" || $0 == "E" }).first.map(String.init) ?? text
    let digits = mantissa.filter(\.isNumber)
    let trimmedLeading = digits.drop { $0 == "0" }
    var result = String(trimmedLeading)
    while result.hasSuffix("0") {
        result.removeLast()
    }
    return result
}
