/// Builds the errors the parser throws.
///
/// Everything here runs only on the failure path, so the hot reading code stays small: the
/// line and column of a location, the wording of the message and the description of the
/// offending byte are all worked out after the fact from the byte offset.
enum ParseDiagnostics {
    // MARK: Whole input

    @inline(never)
    static func emptyInput() -> WireError {
        WireError(
            code: .unexpectedEndOfInput,
            message: "unexpected end of input, expected a JSON value (the input is empty)",
            location: WireError.Location(offset: 0, line: 1, column: 1)
        )
    }

    @inline(never)
    static func inputTooLarge(count: Int, limit: Int) -> WireError {
        WireError(
            code: .inputTooLarge,
            message: "input of \(count) bytes exceeds the limit of \(limit) bytes"
        )
    }

    @inline(never)
    static func byteOrderMark(in input: UnsafeBufferPointer<UInt8>) -> WireError {
        make(.unexpectedByte, "unexpected byte order mark (EF BB BF); JSON text must not start with one", at: 0, in: input)
    }

    @inline(never)
    static func trailingData(at offset: Int, in input: UnsafeBufferPointer<UInt8>) -> WireError {
        make(.trailingData, "unexpected \(describe(at: offset, in: input)) after the top-level value", at: offset, in: input)
    }

    @inline(never)
    static func depthLimitExceeded(at offset: Int, limit: Int, in input: UnsafeBufferPointer<UInt8>) -> WireError {
        make(.depthLimitExceeded, "arrays and objects nested deeper than the limit of \(max(limit, 0))", at: offset, in: input)
    }

    // MARK: Structure

    /// The input ended where more was required; `context` completes "unexpected end of input …".
    @inline(never)
    static func unexpectedEnd(_ context: String, in input: UnsafeBufferPointer<UInt8>) -> WireError {
        make(.unexpectedEndOfInput, "unexpected end of input \(context)", at: input.count, in: input)
    }

    /// A byte that cannot appear here; `context` completes "unexpected 'x' …". A non-ASCII byte
    /// that does not start well-formed UTF-8 is reported as such.
    @inline(never)
    static func unexpected(at offset: Int, _ context: String, in input: UnsafeBufferPointer<UInt8>) -> WireError {
        let byte = input[offset]
        if byte >= 0x80, UTF8Sequence.validLength(at: offset, base: input.baseAddress!, end: input.count) == 0 {
            return invalidUTF8(at: offset, in: input)
        }
        return make(.unexpectedByte, "unexpected \(describe(at: offset, in: input)) \(context)", at: offset, in: input)
    }

    /// A byte where a value should start.
    @inline(never)
    static func unexpectedValueStart(at offset: Int, context: JSONReader.Context, in input: UnsafeBufferPointer<UInt8>) -> WireError {
        switch input[offset] {
        case UInt8(ascii: "+"):
            return make(.invalidNumber, "a number cannot start with '+'", at: offset, in: input)
        case UInt8(ascii: "."):
            return make(.invalidNumber, "a number cannot start with '.'; write a digit before it", at: offset, in: input)
        default:
            switch context {
            case .topLevel:
                return unexpected(at: offset, "where a JSON value was expected", in: input)
            case .array:
                if input[offset] == UInt8(ascii: "]") {
                    return unexpected(at: offset, "in array after ','; trailing commas are not allowed", in: input)
                }
                return unexpected(at: offset, "in array, expected a value", in: input)
            case .object:
                return unexpected(at: offset, "in object, expected a value after ':'", in: input)
            }
        }
    }

    /// A byte where an object key should start.
    @inline(never)
    static func unexpectedKeyStart(at offset: Int, in input: UnsafeBufferPointer<UInt8>) -> WireError {
        if input[offset] == UInt8(ascii: "}") {
            return unexpected(at: offset, "in object after ','; trailing commas are not allowed", in: input)
        }
        return unexpected(at: offset, "in object, expected a string key", in: input)
    }

    @inline(never)
    static func duplicateKey(_ key: String, at offset: Int, in input: UnsafeBufferPointer<UInt8>) -> WireError {
        make(.duplicateKey, "duplicate key \(quoted(key)) in object", at: offset, in: input)
    }

    // MARK: Literals and numbers

    @inline(never)
    static func invalidNumber(_ message: String, at offset: Int, in input: UnsafeBufferPointer<UInt8>) -> WireError {
        make(.invalidNumber, message, at: offset, in: input)
    }

    @inline(never)
    static func numberOutOfRange(from start: Int, to end: Int, in input: UnsafeBufferPointer<UInt8>) -> WireError {
        let length = end - start
        var literal = String(decoding: UnsafeBufferPointer(rebasing: input[start..<(start + min(length, 40))]), as: UTF8.self)
        if length > 40 {
            literal += "…"
        }
        return make(.numberOutOfRange, "number \(literal) is too large for a double", at: start, in: input)
    }

    // MARK: Strings

    @inline(never)
    static func controlCharacter(at offset: Int, in input: UnsafeBufferPointer<UInt8>) -> WireError {
        make(.controlCharacter, "unescaped control character \(scalarName(UInt32(input[offset]))) in string; write it as an escape", at: offset, in: input)
    }

    /// `offset` is the byte after the backslash.
    @inline(never)
    static func invalidEscape(at offset: Int, in input: UnsafeBufferPointer<UInt8>) -> WireError {
        if input[offset] >= 0x80, UTF8Sequence.validLength(at: offset, base: input.baseAddress!, end: input.count) == 0 {
            return invalidUTF8(at: offset, in: input)
        }
        return make(.invalidEscape, "invalid escape sequence: \(describe(at: offset, in: input)) after '\\' in string", at: offset, in: input)
    }

    @inline(never)
    static func invalidHexDigit(at offset: Int, in input: UnsafeBufferPointer<UInt8>) -> WireError {
        make(.invalidEscape, "invalid hexadecimal digit \(describe(at: offset, in: input)) in \\u escape", at: offset, in: input)
    }

    /// `offset` is the backslash of the unpaired escape.
    @inline(never)
    static func loneSurrogate(_ unit: UInt32, at offset: Int, in input: UnsafeBufferPointer<UInt8>) -> WireError {
        let escape = "\\u" + String(unit, radix: 16, uppercase: true)
        let message: String
        if unit < 0xDC00 {
            message = "high surrogate \(escape) is not followed by a \\u escape of a low surrogate"
        } else {
            message = "low surrogate \(escape) is not preceded by a high surrogate"
        }
        return make(.loneSurrogate, message, at: offset, in: input)
    }

    @inline(never)
    static func invalidUTF8(at offset: Int, in input: UnsafeBufferPointer<UInt8>) -> WireError {
        make(.invalidUTF8, UTF8Sequence.diagnosis(at: offset, in: input), at: offset, in: input)
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
