/// Builds and throws the errors the parser reports.
///
/// Everything here runs only on the failure path, so the hot reading code stays small: the
/// line and column of a location, the wording of the message and the description of the
/// offending byte are all worked out after the fact from the byte offset.
///
/// Each entry point throws itself instead of returning the error, so that the reading
/// functions never hold an error value in their own stack frames; that keeps the frames of
/// the recursive descent small.
enum ParseDiagnostics {
    // MARK: Whole input

    @inline(never)
    static func emptyInput() throws(WireError) -> Never {
        throw WireError(
            code: .unexpectedEndOfInput,
            message: "unexpected end of input, expected a JSON value (the input is empty)",
            location: WireError.Location(offset: 0, line: 1, column: 1)
        )
    }

    @inline(never)
    static func inputTooLarge(count: Int, limit: Int) throws(WireError) -> Never {
        throw WireError(
            code: .inputTooLarge,
            message: "input of \(count) bytes exceeds the limit of \(limit) bytes"
        )
    }

    @inline(never)
    static func byteOrderMark(in input: UnsafeBufferPointer<UInt8>) throws(WireError) -> Never {
        throw make(.unexpectedByte, "unexpected byte order mark (EF BB BF); JSON text must not start with one", at: 0, in: input)
    }

    @inline(never)
    static func trailingData(at offset: Int, in input: UnsafeBufferPointer<UInt8>) throws(WireError) -> Never {
        throw make(.trailingData, "unexpected \(describe(at: offset, in: input)) after the top-level value", at: offset, in: input)
    }

    @inline(never)
    static func depthLimitExceeded(at offset: Int, limit: Int, in input: UnsafeBufferPointer<UInt8>) throws(WireError) -> Never {
        throw make(.depthLimitExceeded, "arrays and objects nested deeper than the limit of \(max(limit, 0))", at: offset, in: input)
    }

    // MARK: Structure

    /// The input ended where more was required; `context` completes "unexpected end of input …".
    @inline(never)
    static func unexpectedEnd(_ context: String, in input: UnsafeBufferPointer<UInt8>) throws(WireError) -> Never {
        throw make(.unexpectedEndOfInput, "unexpected end of input \(context)", at: input.count, in: input)
    }

    /// A byte that cannot appear here; `context` completes "unexpected 'x' …". A non-ASCII byte
    /// that does not start well-formed UTF-8 is reported as such.
    @inline(never)
    static func unexpected(at offset: Int, _ context: String, in input: UnsafeBufferPointer<UInt8>) throws(WireError) -> Never {
        throw unexpectedError(at: offset, context, in: input)
    }

    /// A byte where a value should start.
    @inline(never)
    static func unexpectedValueStart(
        at offset: Int,
        context: JSONReader.Context,
        in input: UnsafeBufferPointer<UInt8>
    ) throws(WireError) -> Never {
        switch input[offset] {
        case UInt8(ascii: "+"):
            throw make(.invalidNumber, "a number cannot start with '+'", at: offset, in: input)
        case UInt8(ascii: "."):
            throw make(.invalidNumber, "a number cannot start with '.'; write a digit before it", at: offset, in: input)
        default:
            switch context {
            case .topLevel:
                throw unexpectedError(at: offset, "where a JSON value was expected", in: input)
            case .array:
                if input[offset] == UInt8(ascii: "]") {
                    throw unexpectedError(at: offset, "in array after ','; trailing commas are not allowed", in: input)
                }
                throw unexpectedError(at: offset, "in array, expected a value", in: input)
            case .object:
                throw unexpectedError(at: offset, "in object, expected a value after ':'", in: input)
            }
        }
    }

    /// A byte where an object key should start.
    @inline(never)
    static func unexpectedKeyStart(at offset: Int, in input: UnsafeBufferPointer<UInt8>) throws(WireError) -> Never {
        if input[offset] == UInt8(ascii: "}") {
            throw unexpectedError(at: offset, "in object after ','; trailing commas are not allowed", in: input)
        }
        throw unexpectedError(at: offset, "in object, expected a string key", in: input)
    }

    /// A literal (`true`, `false`, `null`) that does not match at `offset`.
    @inline(never)
    static func invalidLiteral(
        _ literal: StaticString,
        at offset: Int,
        in input: UnsafeBufferPointer<UInt8>
    ) throws(WireError) -> Never {
        let expected = UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
        for step in expected.indices {
            let position = offset + step
            guard position < input.count else {
                throw make(.unexpectedEndOfInput, "unexpected end of input in literal '\(literal)'", at: input.count, in: input)
            }
            if input[position] != expected[step] {
                throw unexpectedError(at: position, "in literal, expected '\(literal)'", in: input)
            }
        }
        throw unexpectedError(at: offset, "in literal, expected '\(literal)'", in: input)
    }

    @inline(never)
    static func duplicateKey(_ key: String, at offset: Int, in input: UnsafeBufferPointer<UInt8>) throws(WireError) -> Never {
        throw make(.duplicateKey, "duplicate key \(quoted(key)) in object", at: offset, in: input)
    }

    // MARK: Numbers

    @inline(never)
    static func invalidNumber(_ message: String, at offset: Int, in input: UnsafeBufferPointer<UInt8>) throws(WireError) -> Never {
        throw make(.invalidNumber, message, at: offset, in: input)
    }

    @inline(never)
    static func numberOutOfRange(from start: Int, to end: Int, in input: UnsafeBufferPointer<UInt8>) throws(WireError) -> Never {
        let length = end - start
        var literal = String(decoding: UnsafeBufferPointer(rebasing: input[start..<(start + min(length, 40))]), as: UTF8.self)
        if length > 40 {
            literal += "…"
        }
        throw make(.numberOutOfRange, "number \(literal) is too large for a double", at: start, in: input)
    }

    // MARK: Strings

    @inline(never)
    static func controlCharacter(at offset: Int, in input: UnsafeBufferPointer<UInt8>) throws(WireError) -> Never {
        throw make(
            .controlCharacter,
            "unescaped control character \(scalarName(UInt32(input[offset]))) in string; write it as an escape",
            at: offset,
            in: input
        )
    }

    /// `offset` is the byte after the backslash.
    @inline(never)
    static func invalidEscape(at offset: Int, in input: UnsafeBufferPointer<UInt8>) throws(WireError) -> Never {
        if input[offset] >= 0x80, UTF8Sequence.validLength(at: offset, base: input.baseAddress!, end: input.count) == 0 {
            throw invalidUTF8Error(at: offset, in: input)
        }
        throw make(.invalidEscape, "invalid escape sequence: \(describe(at: offset, in: input)) after '\\' in string", at: offset, in: input)
    }

    @inline(never)
    static func invalidHexDigit(at offset: Int, in input: UnsafeBufferPointer<UInt8>) throws(WireError) -> Never {
        throw make(.invalidEscape, "invalid hexadecimal digit \(describe(at: offset, in: input)) in \\u escape", at: offset, in: input)
    }

    /// `offset` is the backslash of the unpaired escape.
    @inline(never)
    static func loneSurrogate(_ unit: UInt32, at offset: Int, in input: UnsafeBufferPointer<UInt8>) throws(WireError) -> Never {
        let escape = "\\u" + String(unit, radix: 16, uppercase: true)
        let message: String
        if unit < 0xDC00 {
            message = "high surrogate \(escape) is not followed by a \\u escape of a low surrogate"
        } else {
            message = "low surrogate \(escape) is not preceded by a high surrogate"
        }
        throw make(.loneSurrogate, message, at: offset, in: input)
    }

    @inline(never)
    static func invalidUTF8(at offset: Int, in input: UnsafeBufferPointer<UInt8>) throws(WireError) -> Never {
        throw invalidUTF8Error(at: offset, in: input)
    }

    // MARK: Helpers

    private static func make(
        _ code: WireError.Code,
        _ message: String,
        at offset: Int,
        in input: UnsafeBufferPointer<UInt8>
    ) -> WireError {
        WireError(code: code, message: message, location: WireError.Location(offset: offset, in: input))
    }

    private static func unexpectedError(at offset: Int, _ context: String, in input: UnsafeBufferPointer<UInt8>) -> WireError {
        let byte = input[offset]
        if byte >= 0x80, UTF8Sequence.validLength(at: offset, base: input.baseAddress!, end: input.count) == 0 {
            return invalidUTF8Error(at: offset, in: input)
        }
        return make(.unexpectedByte, "unexpected \(describe(at: offset, in: input)) \(context)", at: offset, in: input)
    }

    private static func invalidUTF8Error(at offset: Int, in input: UnsafeBufferPointer<UInt8>) -> WireError {
        make(.invalidUTF8, UTF8Sequence.diagnosis(at: offset, in: input), at: offset, in: input)
    }

    /// `'x'` for printable ASCII, `'é' (U+00E9)` for other characters, a name for controls.
    static func describe(at offset: Int, in input: UnsafeBufferPointer<UInt8>) -> String {
        let byte = input[offset]
        switch byte {
        case 0x21...0x7E:
            return "'\(Character(Unicode.Scalar(byte)))'"
        case 0x20:
            return "space"
        case 0x00..<0x20, 0x7F:
            return "control character \(scalarName(UInt32(byte)))"
        default:
            let length = UTF8Sequence.validLength(at: offset, base: input.baseAddress!, end: input.count)
            guard length > 0 else { return "byte \(UTF8Sequence.hex(byte))" }
            let text = String(decoding: UnsafeBufferPointer(rebasing: input[offset..<(offset + length)]), as: UTF8.self)
            let scalar = text.unicodeScalars.first.map { $0.value } ?? 0
            return "'\(text)' (\(scalarName(scalar)))"
        }
    }

    /// `U+00E9`.
    static func scalarName(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    /// A key in double quotes, shortened when long.
    static func quoted(_ key: String) -> String {
        guard key.unicodeScalars.count > 60 else { return "\"\(key)\"" }
        return "\"\(String(key.unicodeScalars.prefix(60)))…\""
    }
}
