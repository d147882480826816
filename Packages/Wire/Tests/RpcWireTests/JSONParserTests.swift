import Foundation
import RpcWire
import Testing

/// Parses `text`, returning the error instead of throwing it; `nil` when parsing succeeds.
private func parseFailure(
    _ text: String,
    configuration: JSONParser.Configuration = .default
) -> WireError? {
    do throws(WireError) {
        _ = try JSONParser(configuration: configuration).parse(text)
        return nil
    } catch {
        return error
    }
}

/// Parses raw bytes, returning the error instead of throwing it; `nil` when parsing succeeds.
private func parseFailure(
    bytes: [UInt8],
    configuration: JSONParser.Configuration = .default
) -> WireError? {
    do throws(WireError) {
        _ = try JSONParser(configuration: configuration).parse(bytes)
        return nil
    } catch {
        return error
    }
}

/// The bytes of `prefix`, then `raw`, then `suffix`.
private func bytes(_ prefix: String, _ raw: [UInt8], _ suffix: String = "") -> [UInt8] {
    Array(prefix.utf8) + raw + Array(suffix.utf8)
}

/// One malformed input and exactly where and how it must fail.
struct LocatedFailure: Sendable, CustomTestStringConvertible {
    var name: String
    var input: [UInt8]
    var code: WireError.Code
    var offset: Int
    var line: Int
    var column: Int
    var configuration: JSONParser.Configuration = .default

    var testDescription: String { name }
}

@Suite("JSONParser")
struct JSONParserTests {
    // MARK: - Numbers

    @Test("Numbers without fraction or exponent are integers; all others are doubles")
    func integersAndDoubles() throws {
        #expect(try JSONValue(parsing: "0") == .integer(0))
        #expect(try JSONValue(parsing: "7") == .integer(7))
        #expect(try JSONValue(parsing: "-42") == .integer(-42))
        #expect(try JSONValue(parsing: "12345") == .integer(12345))
        #expect(try JSONValue(parsing: "1.0") == .double(1.0))
        #expect(try JSONValue(parsing: "1e2") == .double(100))
        #expect(try JSONValue(parsing: "1E+2") == .double(100))
        #expect(try JSONValue(parsing: "-2.5") == .double(-2.5))
        #expect(try JSONValue(parsing: "0.0") == .double(0))
        #expect(try JSONValue(parsing: "[1, 1.5, 2e0]") == [.integer(1), .double(1.5), .double(2)])
    }

    @Test("Int64 bounds stay integers and anything beyond becomes a double")
    func int64Bounds() throws {
        #expect(try JSONValue(parsing: "9223372036854775807") == .integer(.max))
        #expect(try JSONValue(parsing: "-9223372036854775808") == .integer(.min))
        #expect(try JSONValue(parsing: "9223372036854775808") == .double(9_223_372_036_854_775_808.0))
        #expect(try JSONValue(parsing: "-9223372036854775809") == .double(-9_223_372_036_854_775_809.0))
        #expect(try JSONValue(parsing: "18446744073709551616") == .double(18_446_744_073_709_551_616.0))
        #expect(try JSONValue(parsing: "99999999999999999999") == .double(Double("99999999999999999999")!))
        #expect(
            try JSONValue(parsing: "123456789012345678901234567890")
                == .double(Double("123456789012345678901234567890")!)
        )
    }

    @Test("Negative zero keeps its sign as a double")
    func negativeZero() throws {
        for text in ["-0", "-0.0", "-0e10", "-0.000E-3"] {
            let value = try JSONValue(parsing: text)
            guard case .double(let number) = value else {
                Issue.record("\(text) parsed as \(value)")
                continue
            }
            #expect(number == 0 && number.sign == .minus, "\(text)")
        }
        #expect(try JSONValue(parsing: "0") == .integer(0))
        let positive = try #require(try JSONValue(parsing: "0.0").doubleValue)
        #expect(positive.sign == .plus)
    }

    @Test("Exponents of every form are applied, underflow gives zero and overflow fails")
    func exponents() throws {
        #expect(try JSONValue(parsing: "1e308") == .double(1e308))
        #expect(try JSONValue(parsing: "2.5e-3") == .double(0.0025))
        #expect(try JSONValue(parsing: "25E-4") == .double(0.0025))
        #expect(try JSONValue(parsing: "1e+5") == .double(100_000))
        #expect(try JSONValue(parsing: "1e-400") == .double(0))
        #expect(try JSONValue(parsing: "-1e-400") == .double(-0.0))
        #expect(try JSONValue(parsing: "1e-99999999999999999999") == .double(0))
        #expect(try JSONValue(parsing: "0e99999999999999999999") == .double(0))
        #expect(try JSONValue(parsing: "4.9e-324") == .double(Double.leastNonzeroMagnitude))
        #expect(try JSONValue(parsing: "1.7976931348623157e308") == .double(.greatestFiniteMagnitude))
        for text in ["1e309", "-1e309", "1.8e308", "1e99999999999999999999", "123123e100000"] {
            #expect(parseFailure(text)?.code == .numberOutOfRange, "\(text)")
        }
    }

    @Test(
        "Tricky decimals round exactly as the standard library does",
        arguments: [
            "0.1", "0.2", "0.3", "0.30000000000000004", "1.0000000000000002", "9007199254740993.0",
            "9007199254740992.5", "2.2250738585072011e-308", "2.2250738585072014e-308",
            "2.4703282292062327e-324", "2.4703282292062328e-324", "4.9406564584124654e-324",
            "1.7976931348623157e308", "1.7976931348623158e308", "8.98846567431158e307", "7.038531e-26",
            "0.1e-5", "123456789012345678901234567890e-10", "3.14159265358979323846264338327950288",
            "1.00000000000000011102230246251565404236316680908203125",
            "1.00000000000000011102230246251565404236316680908203126",
            "1.00000000000000011102230246251565404236316680908203124",
            "1e23", "8.589973e9", "5e-324", "1e22", "1e-22", "9007199254740991e22", "123456789e-30",
            "0.000001", "100000000000000000000000000000000000000000000000000",
        ]
    )
    func correctRounding(text: String) throws {
        let expected = try #require(Double(text))
        let parsed = try #require(try JSONValue(parsing: text).doubleValue)
        #expect(parsed.bitPattern == expected.bitPattern, "\(text): \(parsed) != \(expected)")
    }

    @Test("Random doubles written in shortest and in 17-digit form read back bit for bit")
    func randomDoublesRoundTrip() throws {
        var generator = SplitMix64(seed: 0x5EED)
        var checked = 0
        while checked < 5_000 {
            let value = Double(bitPattern: generator.next())
            guard value.isFinite else { continue }
            for text in [value.description, String(format: "%.17g", value)] {
                let parsed = try #require(try JSONValue(parsing: text).doubleValue, "\(text)")
                #expect(parsed.bitPattern == value.bitPattern, "\(text)")
            }
            checked += 1
        }
    }

    @Test("Random long decimals agree with the standard library")
    func randomLongDecimals() throws {
        var generator = SplitMix64(seed: 42)
        for _ in 0..<2_000 {
            let digitCount = Int.random(in: 15...40, using: &generator)
            var text = Bool.random(using: &generator) ? "-" : ""
            text += String(Int.random(in: 1...9, using: &generator))
            for _ in 1..<digitCount {
                text += String(Int.random(in: 0...9, using: &generator))
            }
            let point = Int.random(in: 1...digitCount, using: &generator)
            if point < digitCount {
                text.insert(".", at: text.index(text.startIndex, offsetBy: point + (text.hasPrefix("-") ? 1 : 0)))
            }
            text += "e\(Int.random(in: -340...300, using: &generator))"
            let expected = try #require(Double(text))
            guard expected.isFinite else {
                #expect(parseFailure(text)?.code == .numberOutOfRange, "\(text)")
                continue
            }
            let parsed = try #require(try JSONValue(parsing: text).doubleValue, "\(text)")
            #expect(parsed.bitPattern == expected.bitPattern, "\(text)")
        }
    }

    // Speed is the benchmarks' business; the limit only stops a runaway (quadratic) parse from
    // hanging the run.
    @Test("Numbers with a million digits parse and round correctly", .timeLimit(.minutes(2)))
    func veryLongNumbers() throws {
        let ones = "0." + String(repeating: "1", count: 1_000_000)
        #expect(try JSONValue(parsing: ones) == .double(Double("0.1111111111111111111111")!))
        let nines = String(repeating: "9", count: 1_000_000) + ".5e-999990"
        let expected = try #require(Double(nines))
        #expect(try JSONValue(parsing: nines) == .double(expected))
        let huge = "1" + String(repeating: "0", count: 1_000_000)
        #expect(parseFailure(huge)?.code == .numberOutOfRange)
        let tiny = "0." + String(repeating: "0", count: 1_000_000) + "1"
        #expect(try JSONValue(parsing: tiny) == .double(0))
        // The sticky digit keeps a value just above a halfway point above it.
        let halfway = "1.00000000000000011102230246251565404236316680908203125" + String(repeating: "0", count: 2_000) + "1"
        #expect(try JSONValue(parsing: halfway) == .double(1.0000000000000002))
        let exactHalfway = "1.00000000000000011102230246251565404236316680908203125" + String(repeating: "0", count: 2_000)
        #expect(try JSONValue(parsing: exactHalfway) == .double(1.0))
    }

    @Test(
        "Numbers outside the JSON grammar are rejected",
        arguments: [
            ("01", WireError.Code.invalidNumber), ("-01", .invalidNumber), ("00", .invalidNumber),
            ("[-]", .invalidNumber), ("-a", .invalidNumber), ("[1.]", .invalidNumber), ("[.5]", .invalidNumber),
            ("+1", .invalidNumber), ("[1e]", .invalidNumber), ("[1e+]", .invalidNumber), ("1.5e+-3", .invalidNumber),
            ("1.e5", .invalidNumber), ("-", .unexpectedEndOfInput), ("1.", .unexpectedEndOfInput),
            ("1e", .unexpectedEndOfInput), ("1e-", .unexpectedEndOfInput), ("0x10", .trailingData),
            ("1.5.2", .trailingData), ("[Infinity]", .unexpectedByte), ("[-Infinity]", .invalidNumber),
            ("[NaN]", .unexpectedByte), ("- 1", .invalidNumber),
        ]
    )
    func invalidNumbers(text: String, code: WireError.Code) {
        let error = parseFailure(text)
        #expect(error?.code == code, "\(text): \(String(describing: error))")
        #expect(error?.location != nil)
    }

    // MARK: - Strings

    @Test("Every JSON escape decodes, including surrogate pairs")
    func escapes() throws {
        #expect(try JSONValue(parsing: #""\" \\ \/ \b \f \n \r \t""#) == .string("\" \\ / \u{08} \u{0C} \n \r \t"))
        #expect(try JSONValue(parsing: #""\u0041\u00e9\u00E9\u4e2d\uFFFF""#) == .string("Aéé中\u{FFFF}"))
        #expect(try JSONValue(parsing: #""\ud83d\ude00 \uD834\uDD1E""#) == .string("😀 𝄞"))
        #expect(try JSONValue(parsing: #""a\u0000b""#) == .string("a\u{0}b"))
        #expect(try JSONValue(parsing: #""\udbff\udfff""#) == .string("\u{10FFFF}"))
        let long = #""The quick brown fox\njumps over\t\"the\" lazy dog \u00e9\u00e8 and \\ more text""#
        #expect(try JSONValue(parsing: long) == .string("The quick brown fox\njumps over\t\"the\" lazy dog éè and \\ more text"))
    }

    @Test("Strings of every length decode with a special character at every position")
    func specialCharacterAtEveryPosition() throws {
        let insertions: [(json: String, decoded: String)] = [
            ("é", "é"), ("\\n", "\n"), ("中", "中"), ("😀", "😀"), ("\\u00e9", "é"), ("\\\"", "\""),
        ]
        for length in 0...40 {
            for position in 0...length {
                for insertion in insertions {
                    let head = String(repeating: "a", count: position)
                    let tail = String(repeating: "b", count: length - position)
                    let json = "\"" + head + insertion.json + tail + "\""
                    let expected = head + insertion.decoded + tail
                    #expect(try JSONValue(parsing: json) == .string(expected), "\(json)")
                }
            }
        }
    }

    @Test("Unpaired surrogate escapes are rejected at their backslash")
    func loneSurrogates() {
        let cases = [
            #"["\ud800"]"#, #"["\ud800x"]"#, #"["\ud800\n"]"#, #"["\ud800\u0041"]"#, #"["\udc00"]"#,
            #"["\ud800\ud800"]"#, #"["\uDFFF\uD800"]"#, #"["ab\uDBFF"]"#,
        ]
        for text in cases {
            let error = parseFailure(text)
            #expect(error?.code == .loneSurrogate, "\(text): \(String(describing: error))")
            let backslash = text.utf8.firstIndex(of: UInt8(ascii: "\\")).map { text.utf8.distance(from: text.utf8.startIndex, to: $0) }
            #expect(error?.location?.offset == backslash, "\(text)")
        }
    }

    @Test("With replaceWithReplacementCharacter each unpaired surrogate escape becomes U+FFFD and pairs still decode")
    func loneSurrogatesReplaced() throws {
        let parser = JSONParser(configuration: .init(loneSurrogates: .replaceWithReplacementCharacter))
        let cases: [(json: String, decoded: String)] = [
            (#""\ud800""#, "\u{FFFD}"), (#""\ud800x""#, "\u{FFFD}x"), (#""\ud800\n""#, "\u{FFFD}\n"),
            (#""\ud800\u0041""#, "\u{FFFD}A"), (#""\udc00""#, "\u{FFFD}"), (#""\ud800\ud800""#, "\u{FFFD}\u{FFFD}"),
            (#""\uDFFF\uD800""#, "\u{FFFD}\u{FFFD}"), (#""ab\uDBFF""#, "ab\u{FFFD}"),
            (#""\ud800\ud83d\ude00!""#, "\u{FFFD}😀!"), (#""\ud83d\ude00""#, "😀"),
            (#""\udbff\udfff\udfff""#, "\u{10FFFF}\u{FFFD}"),
        ]
        for testCase in cases {
            #expect(try parser.parse(testCase.json) == .string(testCase.decoded), "\(testCase.json)")
            // The same escape inside a longer string and as an object key.
            let padded = "\"" + String(repeating: "p", count: 20) + testCase.json.dropFirst()
            #expect(try parser.parse(padded) == .string(String(repeating: "p", count: 20) + testCase.decoded))
            let object = try parser.parse("{" + testCase.json + ":1}")
            #expect(object.objectValue?.keys.first == testCase.decoded, "\(testCase.json) as a key")
        }
        // What follows an unpaired escape is still checked as usual.
        let configuration = JSONParser.Configuration(loneSurrogates: .replaceWithReplacementCharacter)
        #expect(parseFailure(#""\ud800\u12G4""#, configuration: configuration)?.code == .invalidEscape)
        #expect(parseFailure(#""\ud800\x""#, configuration: configuration)?.code == .invalidEscape)
        #expect(parseFailure(#""\ud800"#, configuration: configuration)?.code == .unexpectedEndOfInput)
        #expect(parseFailure(#""\ud800\"#, configuration: configuration)?.code == .unexpectedEndOfInput)
        // Raw surrogate bytes are never UTF-8, whatever the policy.
        #expect(parseFailure(bytes: bytes("\"", [0xED, 0xA0, 0x80], "\""), configuration: configuration)?.code == .invalidUTF8)
        // The default is still strict.
        #expect(JSONParser.Configuration.default.loneSurrogates == .reject)
        #expect(parseFailure(#""\ud800""#)?.code == .loneSurrogate)
    }

    @Test("Escapes JSON does not define are rejected")
    func invalidEscapes() {
        for text in [#""\x""#, #""\U0041""#, #""\'""#, #""\a""#, #""\u12""#, #""\u12G4""#, #""\u""#, #""\ """#] {
            #expect(parseFailure(text)?.code == .invalidEscape, "\(text)")
        }
        #expect(parseFailure(#""\u00"#)?.code == .unexpectedEndOfInput)
        #expect(parseFailure(#""\"#)?.code == .unexpectedEndOfInput)
    }

    @Test("Non-ASCII text is read as written, in strings and keys")
    func nonASCII() throws {
        let text = #"{"名前": "Ada Lovelace", "ville": "Montréal", "emoji": "😀🚀👩‍💻", "mixed": "αβγ and 日本語 and ünïcödé"}"#
        let value = try JSONValue(parsing: text)
        #expect(value["名前"] == "Ada Lovelace")
        #expect(value["ville"] == "Montréal")
        #expect(value["emoji"] == "😀🚀👩‍💻")
        #expect(value["mixed"] == "αβγ and 日本語 and ünïcödé")
        let long = String(repeating: "Élève façade 中文 😀 ", count: 200)
        #expect(try JSONValue(parsing: "\"\(long)\"") == .string(long))
    }

    @Test("Keys that differ only in normalisation are different keys")
    func keysCompareByScalars() throws {
        let text = "{\"\u{E9}\": 1, \"e\u{301}\": 2}"
        let object = try #require(try JSONValue(parsing: text, configuration: .init(duplicateKeys: .reject)).objectValue)
        #expect(object.count == 2)
    }

    @Test("Well-formed UTF-8 at the edges of each sequence length is accepted")
    func utf8Boundaries() throws {
        let scalars: [UInt32] = [0x7F, 0x80, 0x7FF, 0x800, 0xD7FF, 0xE000, 0xFFFD, 0xFFFF, 0x10000, 0x10FFFF]
        for value in scalars {
            let scalar = try #require(Unicode.Scalar(value))
            let string = String(Character(scalar))
            for padding in [0, 3, 8, 13] {
                let pad = String(repeating: "p", count: padding)
                #expect(try JSONValue(parsing: "\"\(pad)\(string)\(pad)\"") == .string(pad + string + pad), "U+\(String(value, radix: 16))")
            }
        }
    }

    @Test(
        "Ill-formed UTF-8 is rejected wherever it appears in a string",
        arguments: [
            [0xC0, 0x80], [0xC1, 0xBF], [0x80], [0xBF], [0xE2, 0x82], [0xE2, 0x28, 0xA1], [0xE0, 0x80, 0x80],
            [0xE0, 0x9F, 0xBF], [0xED, 0xA0, 0x80], [0xED, 0xBF, 0xBF], [0xF0, 0x80, 0x80, 0x80],
            [0xF0, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xFF], [0xFE],
            [0xF0, 0x9F, 0x98], [0xC3],
        ] as [[UInt8]]
    )
    func invalidUTF8InStrings(sequence: [UInt8]) {
        for padding in [0, 5, 8, 17] {
            let pad = String(repeating: "x", count: padding)
            for suffix in ["\"", "ab\"", "\u{E9}abcdefgh\""] {
                let input = bytes("[\"" + pad, sequence, suffix + "]")
                let error = parseFailure(bytes: input)
                #expect(error?.code == .invalidUTF8, "\(sequence) after \(padding): \(String(describing: error))")
                #expect(error?.location?.offset == 2 + padding)
            }
        }
    }

    @Test(
        "Ill-formed UTF-8 after an escape is rejected at its first byte",
        arguments: [
            [0xC0, 0x80], [0x80], [0xE2, 0x82], [0xE2, 0x28, 0xA1], [0xE0, 0x9F, 0xBF], [0xED, 0xA0, 0x80],
            [0xF0, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xFF],
            [0xF0, 0x9F, 0x98], [0xC3],
        ] as [[UInt8]]
    )
    func invalidUTF8AfterEscapes(sequence: [UInt8]) {
        for escape in [#"\n"#, #"\u00e9"#, #"\ud83d\ude00"#] {
            for padding in [0, 5, 8, 17] {
                let prefix = "[\"\u{E9}" + escape + String(repeating: "x", count: padding)
                for suffix in ["\"", "ab\"", "\u{E9}abcdefghijklmnop\\t\""] {
                    let error = parseFailure(bytes: bytes(prefix, sequence, suffix + "]"))
                    #expect(error?.code == .invalidUTF8, "\(sequence) after \(prefix): \(String(describing: error))")
                    #expect(error?.location?.offset == prefix.utf8.count, "\(sequence) after \(prefix)")
                }
            }
        }
    }

    @Test("Strings keep their characters whether or not they are all ASCII, with and without escapes")
    func asciiAndNonASCIIStrings() throws {
        let cases: [(json: String, decoded: String)] = [
            (#"plain ASCII text without escapes"#, "plain ASCII text without escapes"),
            (#"plain text with raw ünïcödé and no escapes"#, "plain text with raw ünïcödé and no escapes"),
            (#"ASCII text with a \n newline"#, "ASCII text with a \n newline"),
            (#"ASCII escapes \u0041\u0042 and \/ slashes"#, "ASCII escapes AB and / slashes"),
            (#"an escaped \u00e9 among ASCII text"#, "an escaped é among ASCII text"),
            (#"an escaped \u4e2d among ASCII text"#, "an escaped 中 among ASCII text"),
            (#"an escaped pair \ud83d\ude00 among ASCII text"#, "an escaped pair 😀 among ASCII text"),
            (#"raw é before \n an escape"#, "raw é before \n an escape"),
            (#"an escape \t before raw 日本語 text"#, "an escape \t before raw 日本語 text"),
            (#"short \u00e9"#, "short é"),
            (#"short \n"#, "short \n"),
        ]
        for (json, decoded) in cases {
            let string = try #require(try JSONValue(parsing: "[\"\(json)\"]")[0]?.stringValue)
            #expect(string == decoded)
            // Counting characters and UTF-16 code units relies on knowing whether the
            // string is all ASCII.
            #expect(string.count == decoded.count, "\(json)")
            #expect(string.utf16.count == decoded.utf16.count, "\(json)")
            #expect(Array(string.unicodeScalars) == Array(decoded.unicodeScalars), "\(json)")
            let object = try JSONValue(parsing: "{\"\(json)\": 1}")
            #expect(object[decoded] == 1, "\(json)")
        }
    }

    @Test("Ill-formed UTF-8 outside strings is reported as such")
    func invalidUTF8OutsideStrings() {
        #expect(parseFailure(bytes: [0xFF])?.code == .invalidUTF8)
        #expect(parseFailure(bytes: bytes("[1, ", [0xC0, 0x80], "]"))?.code == .invalidUTF8)
        #expect(parseFailure(bytes: bytes("{", [0x80], "}"))?.code == .invalidUTF8)
        let unexpected = parseFailure("[é]")
        #expect(unexpected?.code == .unexpectedByte)
        #expect(unexpected?.message.contains("'é' (U+00E9)") == true)
    }

    @Test("Raw control characters in strings are rejected, and DEL is allowed")
    func controlCharacters() throws {
        for byte: UInt8 in 0x00..<0x20 {
            let error = parseFailure(bytes: bytes("\"abc", [byte], "\""))
            #expect(error?.code == .controlCharacter, "byte \(byte)")
            #expect(error?.location?.offset == 4)
        }
        #expect(try JSONValue(parsing: "\"a\u{7F}b\"") == .string("a\u{7F}b"))
    }

    // MARK: - Structure

    @Test("Literals, arrays, objects and nesting parse to the expected tree")
    func structure() throws {
        let text = """
            ["push", ["pipeline", 0, ["echo"], [{"id": 12345, "name": "Ada Lovelace", "tags": [["x", "y"]],
            "score": 98.5, "active": true, "bio": null, "empty": {}, "none": [], "off": false}]]]
            """
        let expected: JSONValue = [
            "push",
            [
                "pipeline", 0, ["echo"],
                [
                    [
                        "id": 12345, "name": "Ada Lovelace", "tags": [["x", "y"]], "score": 98.5, "active": true,
                        "bio": nil, "empty": [:], "none": [], "off": false,
                    ]
                ],
            ],
        ]
        let value = try JSONValue(parsing: text)
        #expect(value == expected)
        let object = try #require(value[1]?[3]?[0]?.objectValue)
        #expect(object.keys == ["id", "name", "tags", "score", "active", "bio", "empty", "none", "off"])
    }

    @Test("Arrays of every small length and with nested containers keep their elements in order")
    func arraysOfManyLengths() throws {
        for length in 0...40 {
            let elements = (0..<length).map { JSONValue.integer(Int64($0)) }
            let text = "[" + (0..<length).map(String.init).joined(separator: ", ") + "]"
            #expect(try JSONValue(parsing: text) == .array(elements))
            let nested = "[" + (0..<length).map { "[\($0), {\"k\": [\($0)]}]" }.joined(separator: ",") + "]"
            let expected = JSONValue.array((0..<length).map { [.integer(Int64($0)), ["k": [.integer(Int64($0))]]] })
            #expect(try JSONValue(parsing: nested) == expected)
        }
    }

    @Test("Literals must be spelled exactly")
    func literals() {
        #expect(parseFailure("tru")?.code == .unexpectedEndOfInput)
        #expect(parseFailure("nul")?.code == .unexpectedEndOfInput)
        #expect(parseFailure("[fals")?.code == .unexpectedEndOfInput)
        #expect(parseFailure("trux")?.code == .unexpectedByte)
        #expect(parseFailure("trux")?.location?.offset == 3)
        #expect(parseFailure("True")?.code == .unexpectedByte)
        #expect(parseFailure("nulL")?.code == .unexpectedByte)
        #expect(parseFailure("[falsy]")?.code == .unexpectedByte)
        #expect(parseFailure("truefalse")?.code == .trailingData)
    }

    @Test("Misplaced separators, trailing commas and non-string keys are rejected with clear messages")
    func structuralErrors() {
        let cases: [(String, String)] = [
            ("[1,,2]", "unexpected ',' in array"),
            ("[,1]", "unexpected ',' in array"),
            ("[1,]", "unexpected ']' in array after ','"),
            ("{\"a\":1,}", "unexpected '}' in object after ','"),
            ("[1 2]", "unexpected '2' in array, expected ',' or ']'"),
            ("{\"a\" 1}", "unexpected '1' in object, expected ':'"),
            ("{1:2}", "unexpected '1' in object, expected a string key"),
            ("{\"a\":}", "unexpected '}' in object, expected a value"),
            ("{\"a\":1 \"b\":2}", "unexpected '\"' in object, expected ',' or '}'"),
            ("[1}", "unexpected '}' in array"),
            ("{\"a\":1]", "unexpected ']' in object"),
            ("]", "unexpected ']' where a JSON value was expected"),
        ]
        for (text, message) in cases {
            let error = parseFailure(text)
            #expect(error?.code == .unexpectedByte, "\(text)")
            #expect(error?.message.hasPrefix(message) == true, "\(text): \(error?.message ?? "accepted")")
        }
        for text in ["[", "[1", "[1,", "{", "{\"a\"", "{\"a\":", "{\"a\":1", "{\"a\":1,", "\"abc", "[\"a\\"] {
            #expect(parseFailure(text)?.code == .unexpectedEndOfInput, "\(text)")
        }
    }

    @Test("Messages name the problem in plain words")
    func messages() {
        #expect(parseFailure("01")?.message == "leading zero in number")
        #expect(parseFailure(bytes: bytes("\"", [0xC0, 0x80], "\""))?.message.hasPrefix("invalid UTF-8 byte 0xC0") == true)
        #expect(parseFailure("[1,,2]")?.message.hasPrefix("unexpected ',' in array") == true)
        #expect(parseFailure("{\"id\":1,\"id\":2}", configuration: .init(duplicateKeys: .reject))?.message == "duplicate key \"id\" in object")
        #expect(parseFailure("[1e400]")?.message == "number 1e400 is too large for a double")
    }

    // MARK: - Top level

    @Test("Any value may stand at the top level, surrounded by JSON white space only")
    func topLevel() throws {
        #expect(try JSONValue(parsing: " \t\r\n42 \t\r\n") == .integer(42))
        #expect(try JSONValue(parsing: "\"text\"") == .string("text"))
        #expect(try JSONValue(parsing: "null") == .null)
        #expect(try JSONValue(parsing: "true") == .bool(true))
        #expect(try JSONValue(parsing: "  []") == [])
        #expect(parseFailure("\u{0C}1")?.code == .unexpectedByte)
        #expect(parseFailure("1\u{0C}")?.code == .trailingData)
        #expect(parseFailure("\u{A0}1")?.code == .unexpectedByte)
    }

    @Test("Anything but white space after the value is trailing data")
    func trailingData() {
        for (text, offset) in [("1 2", 2), ("[] ]", 3), ("{}x", 2), ("\"a\"\"b\"", 3), ("null,", 4), ("1\n\n/", 3)] {
            let error = parseFailure(text)
            #expect(error?.code == .trailingData, "\(text)")
            #expect(error?.location?.offset == offset, "\(text)")
        }
    }

    @Test("Empty and blank inputs end unexpectedly")
    func emptyInput() throws {
        let empty = try #require(parseFailure(""))
        #expect(empty.code == .unexpectedEndOfInput)
        #expect(empty.location == WireError.Location(offset: 0, line: 1, column: 1))
        let blank = try #require(parseFailure(" \n "))
        #expect(blank.code == .unexpectedEndOfInput)
        #expect(blank.location == WireError.Location(offset: 3, line: 2, column: 2))
        #expect(parseFailure(bytes: [])?.code == .unexpectedEndOfInput)
    }

    @Test("A UTF-8 byte order mark is rejected")
    func byteOrderMark() {
        let error = parseFailure(bytes: bytes("", [0xEF, 0xBB, 0xBF], "{}"))
        #expect(error?.code == .unexpectedByte)
        #expect(error?.location?.offset == 0)
        #expect(parseFailure(bytes: [0xEF, 0xBB, 0xBF])?.code == .unexpectedByte)
    }

    // MARK: - Locations

    static let locatedFailures: [LocatedFailure] = [
        LocatedFailure(name: "unexpectedEndOfInput", input: Array("[1,\n 2".utf8), code: .unexpectedEndOfInput, offset: 6, line: 2, column: 3),
        LocatedFailure(name: "unexpectedByte", input: Array("{\n  \"a\" 1}".utf8), code: .unexpectedByte, offset: 8, line: 2, column: 7),
        LocatedFailure(name: "invalidNumber", input: Array("[\n  01]".utf8), code: .invalidNumber, offset: 4, line: 2, column: 3),
        LocatedFailure(name: "numberOutOfRange", input: Array("[\n 1e999]".utf8), code: .numberOutOfRange, offset: 3, line: 2, column: 2),
        LocatedFailure(name: "invalidEscape", input: Array("[\n\"ab\\q\"]".utf8), code: .invalidEscape, offset: 6, line: 2, column: 5),
        LocatedFailure(name: "loneSurrogate", input: Array("[\n\"x\\ud800\"]".utf8), code: .loneSurrogate, offset: 4, line: 2, column: 3),
        LocatedFailure(name: "invalidUTF8", input: bytes("[\n\"é", [0xC0], "\"]"), code: .invalidUTF8, offset: 5, line: 2, column: 3),
        LocatedFailure(name: "controlCharacter", input: Array("[\n \"a\tb\"]".utf8), code: .controlCharacter, offset: 5, line: 2, column: 4),
        LocatedFailure(name: "trailingData", input: Array("{}\n  x".utf8), code: .trailingData, offset: 5, line: 2, column: 3),
        LocatedFailure(
            name: "depthLimitExceeded", input: Array("[[\n[1]]]".utf8), code: .depthLimitExceeded, offset: 3, line: 2, column: 1,
            configuration: .init(maxDepth: 2)
        ),
        LocatedFailure(
            name: "duplicateKey", input: Array("{\"a\":1,\n \"a\":2}".utf8), code: .duplicateKey, offset: 9, line: 2, column: 2,
            configuration: .init(duplicateKeys: .reject)
        ),
        LocatedFailure(name: "invalidUTF8 outside a string", input: bytes("[\n", [0xFF], "]"), code: .invalidUTF8, offset: 2, line: 2, column: 1),
        LocatedFailure(name: "columns count characters", input: Array("[\"日本\", x]".utf8), code: .unexpectedByte, offset: 11, line: 1, column: 8),
        LocatedFailure(name: "third line", input: Array("{\r\n\"a\": [1,\r\n  2,, 3]}".utf8), code: .unexpectedByte, offset: 17, line: 3, column: 5),
    ]

    @Test("Each error code carries the exact offset, line and column of the offending byte", arguments: locatedFailures)
    func errorLocations(failure: LocatedFailure) throws {
        let error = try #require(parseFailure(bytes: failure.input, configuration: failure.configuration))
        #expect(error.code == failure.code, "\(error)")
        #expect(error.location == WireError.Location(offset: failure.offset, line: failure.line, column: failure.column), "\(error)")
        #expect(!error.message.isEmpty)
    }

    // MARK: - Duplicate keys

    @Test("With useLast a repeated key keeps its first position and takes its last value")
    func duplicateKeysUseLast() throws {
        let object = try #require(try JSONValue(parsing: #"{"a": 1, "b": 2, "a": 3, "\u0061": 4, "c": 5}"#).objectValue)
        #expect(object.keys == ["a", "b", "c"])
        #expect(object["a"] == 4)
        #expect(object["b"] == 2)
    }

    @Test("With reject a repeated key fails at the repeated key, even when written with escapes")
    func duplicateKeysReject() throws {
        let configuration = JSONParser.Configuration(duplicateKeys: .reject)
        let plain = try #require(parseFailure(#"{"a": 1, "a": 2}"#, configuration: configuration))
        #expect(plain.code == .duplicateKey)
        #expect(plain.location?.offset == 9)
        #expect(parseFailure(#"{"a": 1, "\u0061": 2}"#, configuration: configuration)?.code == .duplicateKey)
        #expect(parseFailure(#"{"a": {"a": 1}, "b": {"a": 2}}"#, configuration: configuration) == nil)
    }

    @Test("Duplicates are found in objects large enough to be indexed")
    func duplicateKeysInLargeObjects() throws {
        let members = (0..<20).map { "\"key\($0)\": \($0)" }
        let text = "{" + members.joined(separator: ", ") + ", \"key3\": \"again\", \"extra\": true}"
        let object = try #require(try JSONValue(parsing: text).objectValue)
        #expect(object.count == 21)
        #expect(object["key3"] == "again")
        #expect(object.position(ofKey: "key3") == 3)
        #expect(object["extra"] == true)
        let error = parseFailure(text, configuration: .init(duplicateKeys: .reject))
        #expect(error?.code == .duplicateKey)
        let repeated = text.utf8.count - "\"key3\": \"again\", \"extra\": true}".utf8.count
        #expect(error?.location?.offset == repeated)
    }

    @Test("An object with 50 000 keys is parsed and every key can be looked up")
    func fiftyThousandKeys() throws {
        let text = "{" + (0..<50_000).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + "}"
        let object = try #require(try JSONValue(parsing: text, configuration: .init(duplicateKeys: .reject)).objectValue)
        #expect(object.count == 50_000)
        #expect(object.keys.first == "k0")
        #expect(object.keys.last == "k49999")
        for key in stride(from: 0, to: 50_000, by: 997) {
            #expect(object["k\(key)"] == .integer(Int64(key)))
        }
        #expect(object["k50000"] == nil)
    }

    @Test(
        "A hostile object with 100 000 keys of equal length and shared ends is checked for duplicates",
        .timeLimit(.minutes(2))
    )
    func hostileKeys() throws {
        let keys = (0..<100_000).map { index -> String in
            let digits = String(index)
            return "shared-prefix-" + String(repeating: "0", count: 6 - digits.count) + digits + "-shared-suffix"
        }
        let text = "{" + keys.map { "\"\($0)\":1" }.joined(separator: ",") + "}"
        let object = try #require(try JSONValue(parsing: text, configuration: .init(duplicateKeys: .reject)).objectValue)
        #expect(object.count == 100_000)
        #expect(object["shared-prefix-099999-shared-suffix"] == 1)
        // The same keys with one of the first repeated at the very end: found, however alike
        // the keys are.
        let duplicated = "{" + keys.map { "\"\($0)\":1" }.joined(separator: ",") + ",\"\(keys[1])\":2}"
        let duplicate = parseFailure(duplicated, configuration: .init(duplicateKeys: .reject))
        #expect(duplicate?.code == .duplicateKey)
        #expect(duplicate?.message == "duplicate key \"\(keys[1])\" in object")
        let repeated = "{" + String(repeating: "\"same\":1,", count: 100_000) + "\"same\":2}"
        #expect(try JSONValue(parsing: repeated) == ["same": 2])
    }

    // MARK: - Limits

    @Test("Nesting up to the depth limit is accepted and one level more is rejected")
    func depthLimit() throws {
        let arrays = String(repeating: "[", count: 256) + String(repeating: "]", count: 256)
        #expect(parseFailure(arrays) == nil)
        let tooDeep = String(repeating: "[", count: 257) + String(repeating: "]", count: 257)
        let error = try #require(parseFailure(tooDeep))
        #expect(error.code == .depthLimitExceeded)
        #expect(error.location?.offset == 256)
        let objects = String(repeating: "{\"a\":", count: 256) + "1" + String(repeating: "}", count: 256)
        #expect(parseFailure(objects) == nil)
        let deeperObjects = String(repeating: "{\"a\":", count: 257) + "1" + String(repeating: "}", count: 257)
        #expect(parseFailure(deeperObjects)?.code == .depthLimitExceeded)
        #expect(parseFailure("1", configuration: .init(maxDepth: 0)) == nil)
        #expect(parseFailure("[]", configuration: .init(maxDepth: 0))?.code == .depthLimitExceeded)
        #expect(parseFailure("[[]]", configuration: .init(maxDepth: 1))?.code == .depthLimitExceeded)
    }

    @Test("One hundred thousand opening brackets are rejected at the first one past the limit", .timeLimit(.minutes(1)))
    func deepNestingFailsFast() {
        // Rejected where the limit is crossed, not after reading (or recursing through) the rest.
        let error = parseFailure(String(repeating: "[", count: 100_000))
        #expect(error?.code == .depthLimitExceeded)
        #expect(error?.location?.offset == 256)
        // `[{"a":` opens two containers in six bytes: the 257th opening is the `[` at 128 * 6.
        let mixed = parseFailure(String(repeating: "[{\"a\":", count: 50_000))
        #expect(mixed?.code == .depthLimitExceeded)
        #expect(mixed?.location?.offset == 768)
    }

    @Test("Inputs larger than the size limit are rejected before parsing, whatever their form")
    func inputSizeLimit() throws {
        let parser = JSONParser(configuration: .init(maxInputSize: 10))
        let fits = "[1,2,3,45]"
        let tooLarge = "[1,2,3,4,5]"
        #expect(try parser.parse(fits) == [1, 2, 3, 45])
        func failure(_ body: () throws(WireError) -> JSONValue) -> WireError? {
            do throws(WireError) {
                _ = try body()
                return nil
            } catch {
                return error
            }
        }
        let bytes = Array(tooLarge.utf8)
        for error in [
            failure { () throws(WireError) in try parser.parse(tooLarge) },
            failure { () throws(WireError) in try parser.parse(bytes) },
            failure { () throws(WireError) in try parser.parse(bytes[...]) },
            failure { () throws(WireError) in try parser.parse(bytes.lazy.map { $0 }) },
            failure { () throws(WireError) in try bytes.withUnsafeBytes { raw in Result { () throws(WireError) in try parser.parse(raw) } }.get() },
        ] {
            #expect(error?.code == .inputTooLarge)
            #expect(error?.location == nil)
        }
        // Not even malformed content is looked at.
        #expect(failure { () throws(WireError) in try parser.parse("xxxxxxxxxxxx") }?.code == .inputTooLarge)
        #expect(JSONParser.Configuration.default.maxInputSize == 33_554_432)
        #expect(JSONParser.Configuration.default.maxDepth == 256)
        #expect(JSONParser.Configuration.default.duplicateKeys == .useLast)
    }

    // MARK: - Entry points

    @Test("Every entry point gives the same result")
    func entryPoints() throws {
        let text = #"{"list": [1, 2.5, "three", null, true], "nested": {"é": "ü"}}"#
        let bytes = Array(text.utf8)
        let parser = JSONParser()
        let expected = try JSONValue(parsing: text)
        #expect(try JSONValue(parsing: bytes) == expected)
        #expect(try parser.parse(bytes) == expected)
        #expect(try parser.parse(text) == expected)
        #expect(try parser.parse(("  " + text + "  ").utf8.dropFirst(2).dropLast(2)) == expected)
        #expect(try parser.parse(bytes[...]) == expected)
        #expect(try parser.parse(Data(bytes)) == expected)
        #expect(try parser.parse(bytes.lazy.map { $0 }) == expected)
        let raw = try bytes.withUnsafeBytes { raw in Result { () throws(WireError) in try parser.parse(raw) } }.get()
        #expect(raw == expected)
        let bridged = NSString(string: text) as String
        #expect(try parser.parse(bridged) == expected)
    }
}
