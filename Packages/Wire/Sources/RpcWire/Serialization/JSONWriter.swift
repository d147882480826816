/// Appends compact JSON text, as UTF-8, to a byte buffer it owns.
///
/// `JSONWriter` is the low-level tool under ``JSONSerializer``: it writes scalars, strings and
/// punctuation one call at a time, so a message can be written without first building a
/// ``JSONValue`` tree. It does not check that the calls form well-formed JSON; the caller
/// writes the brackets, commas and colons with ``writeRaw(_:)-(UInt8)`` and
/// ``writeRaw(_:)-(StaticString)``.
///
/// Scalars are written exactly as JavaScript's `JSON.stringify` writes them, with one
/// exception: negative zero is written `-0` rather than `0`, so that parsing and writing a
/// value again gives back the same bits.
///
/// ```swift
/// var writer = JSONWriter()
/// writer.writeRaw("[")
/// writer.writeString("push")
/// writer.writeRaw(",")
/// writer.writeInteger(42)
/// writer.writeRaw("]")
/// // writer.bytes holds `["push",42]`
/// ```
public struct JSONWriter: Sendable {
    /// The text written so far, as UTF-8.
    ///
    /// Take it when done (`let output = writer.bytes`), or keep writing after it.
    public var bytes: [UInt8]

    /// Creates a writer with an empty buffer.
    @inlinable
    public init() {
        bytes = []
    }

    /// Creates a writer with an empty buffer that has room for `capacity` bytes.
    @inlinable
    public init(reservingCapacity capacity: Int) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// Creates a writer that appends to `bytes`.
    @inlinable
    public init(appendingTo bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Makes room for at least `capacity` bytes in total.
    @inlinable
    public mutating func reserveCapacity(_ capacity: Int) {
        bytes.reserveCapacity(capacity)
    }

    // MARK: - Punctuation

    /// Appends one byte as is, typically `[`, `]`, `{`, `}`, `,` or `:`.
    ///
    /// The byte is not checked: appending a byte that is not ASCII can leave the buffer
    /// holding text that is not UTF-8.
    @inlinable
    public mutating func writeRaw(_ byte: UInt8) {
        bytes.append(byte)
    }

    /// Appends the UTF-8 of `text` as is, without escaping.
    @inlinable
    public mutating func writeRaw(_ text: StaticString) {
        text.withUTF8Buffer { utf8 in
            bytes.append(contentsOf: utf8)
        }
    }

    // MARK: - Scalars

    /// Appends `null`.
    @inlinable
    public mutating func writeNull() {
        writeRaw("null")
    }

    /// Appends `true` or `false`.
    @inlinable
    public mutating func writeBool(_ value: Bool) {
        if value {
            writeRaw("true")
        } else {
            writeRaw("false")
        }
    }

    /// Appends an integer in decimal, with a leading `-` when negative.
    @inlinable
    public mutating func writeInteger(_ value: Int64) {
        if value >= 0, value < 10 {
            bytes.append(UInt8(truncatingIfNeeded: value) &+ UInt8(ascii: "0"))
            return
        }
        var magnitude = value.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = 20
            repeat {
                let (quotient, remainder) = magnitude.quotientAndRemainder(dividingBy: 10)
                start -= 1
                digits[start] = UInt8(truncatingIfNeeded: remainder) &+ UInt8(ascii: "0")
                magnitude = quotient
            } while magnitude != 0
            if value < 0 {
                bytes.append(UInt8(ascii: "-"))
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start..<20]))
        }
    }

    /// Appends a finite number with the fewest digits that read back as the same `Double`,
    /// laid out as JavaScript's `Number.prototype.toString` lays it out.
    ///
    /// Integral values below 10^21 have no fraction (`100`, `100000000000000000000`); other
    /// values use plain notation between 10^-7 and 10^21 (`0.000001`, `123.456`) and
    /// exponent notation outside it (`1e+21`, `1.5e-7`).
    ///
    /// Two departures keep parse-then-write an identity: negative zero is written `-0`, and an
    /// integral value of magnitude below 2^63 is written as its exact integer
    /// (`1152921504606846976` where JavaScript writes `1152921504606847000`). Above 2^53 the
    /// shortest digits are not the exact value, and since they fit an `Int64` a reader that keeps
    /// integers exact would take them for a different number. Both texts read back as the same
    /// double in JavaScript.
    ///
    /// - Throws: ``WireError/Code/nonFiniteNumber`` for infinities and NaN, which JSON cannot
    ///   hold; nothing is appended then.
    @inlinable
    public mutating func writeDouble(_ value: Double) throws(WireError) {
        guard value.isFinite else {
            throw WireError(
                code: .nonFiniteNumber,
                message: "cannot write the non-finite number \(value) as JSON")
        }
        writeFiniteDouble(value)
    }

    /// Appends a finite double; see ``writeDouble(_:)``.
    @inlinable
    mutating func writeFiniteDouble(_ value: Double) {
        // Integral values below 2^63 print as their exact integer: below 2^53 that is what
        // Number::toString writes too; above it, the exact digits keep the text from reading
        // back as a different Int64 (see writeDouble).
        if value.magnitude < 9_223_372_036_854_775_808.0, value == value.rounded(.towardZero) {
            if value == 0, value.sign == .minus {
                writeRaw("-0")
            } else {
                writeInteger(Int64(value))
            }
            return
        }
        writeShortestDigits(value)
    }

    /// Appends any finite double through its shortest round-trip digits.
    @usableFromInline
    mutating func writeShortestDigits(_ value: Double) {
        var layout = ShortestNumberLayout(output: [])
        swap(&layout.output, &bytes)
        value.write(to: &layout)
        swap(&layout.output, &bytes)
    }

    // MARK: - Strings

    /// Appends `value` as a quoted JSON string.
    ///
    /// Escapes `"` and `\` and the control characters U+0000 to U+001F (`\b`, `\f`, `\n`, `\r`
    /// and `\t` in their short forms, the others as `\u00xx` in lowercase hex). Every other
    /// character is written as its raw UTF-8, including `/`, U+2028, U+2029 and non-ASCII
    /// text, which is what `JSON.stringify` writes.
    @inlinable
    public mutating func writeString(_ value: String) {
        let written: Void? = value.utf8.withContiguousStorageIfAvailable { utf8 in
            appendQuoted(utf8)
        }
        if written == nil {
            var contiguous = value
            contiguous.withUTF8 { utf8 in
                appendQuoted(utf8)
            }
        }
    }

    /// Appends UTF-8 text in quotes, escaping what JSON requires.
    @usableFromInline
    mutating func appendQuoted(_ utf8: UnsafeBufferPointer<UInt8>) {
        bytes.append(UInt8(ascii: "\""))
        if Self.needsEscaping(utf8) {
            appendEscaped(utf8)
        } else {
            bytes.append(contentsOf: utf8)
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Whether any byte of `utf8` needs an escape, checked eight bytes at a time.
    @usableFromInline
    static func needsEscaping(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = utf8.baseAddress else { return false }
        let count = utf8.count
        var index = 0
        while count - index >= 8 {
            if wordNeedsEscape(UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)) {
                return true
            }
            index += 8
        }
        guard index < count else { return false }
        // The last few bytes, padded with spaces (which need no escape) to a whole word.
        var word: UInt64 = 0x2020_2020_2020_2020
        withUnsafeMutableBytes(of: &word) { raw in
            var offset = 0
            while index + offset < count {
                raw[offset] = base[index + offset]
                offset += 1
            }
        }
        return wordNeedsEscape(word)
    }

    /// Appends UTF-8 text without quotes, escaping what JSON requires.
    ///
    /// Runs of bytes that need no escape are found eight bytes at a time and appended in bulk.
    @usableFromInline
    mutating func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        guard let base = utf8.baseAddress else { return }
        let count = utf8.count
        var runStart = 0
        var index = 0
        while index < count {
            if count - index >= 8 {
                let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
                if !Self.wordNeedsEscape(word) {
                    index += 8
                    continue
                }
            }
            let byte = base[index]
            if byte >= 0x20, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
                index += 1
                continue
            }
            if runStart < index {
                bytes.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: index - runStart))
            }
            appendEscape(for: byte)
            index += 1
            runStart = index
        }
        if runStart < count {
            bytes.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: count - runStart))
        }
    }

    /// Whether any of the eight bytes in `word` is a control character, `"` or `\`.
    @inlinable
    static func wordNeedsEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        let belowSpace = (word &- ones &* 0x20) & ~word
        let quotes = word ^ (ones &* UInt64(UInt8(ascii: "\"")))
        let backslashes = word ^ (ones &* UInt64(UInt8(ascii: "\\")))
        let hasQuote = (quotes &- ones) & ~quotes
        let hasBackslash = (backslashes &- ones) & ~backslashes
        return (belowSpace | hasQuote | hasBackslash) & highBits != 0
    }

    /// Appends the escape sequence for a byte that needs one.
    @usableFromInline
    mutating func appendEscape(for byte: UInt8) {
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""): bytes.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\"))
        case 0x08: bytes.append(UInt8(ascii: "b"))
        case 0x0C: bytes.append(UInt8(ascii: "f"))
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        default:
            let hexDigits: StaticString = "0123456789abcdef"
            hexDigits.withUTF8Buffer { hex in
                bytes.append(UInt8(ascii: "u"))
                bytes.append(UInt8(ascii: "0"))
                bytes.append(UInt8(ascii: "0"))
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0x0F)])
            }
        }
    }

    // MARK: - Values

    /// Appends a whole value in compact form, with object members in their stored order.
    ///
    /// Arrays and objects may nest up to ``JSONSerializer/Configuration/maxDepth`` of the
    /// default configuration; use ``JSONSerializer`` for other limits or canonical key order.
    ///
    /// - Throws: ``WireError/Code/nonFiniteNumber`` for a non-finite double and
    ///   ``WireError/Code/depthLimitExceeded`` for nesting beyond the limit. The buffer then
    ///   holds the text written before the failure.
    public mutating func write(_ value: JSONValue) throws(WireError) {
        try write(value, options: WriteOptions(configuration: .default), depth: 0)
    }

    /// Appends a value with the given options; `depth` counts the arrays and objects that are
    /// already open around it.
    mutating func write(_ value: JSONValue, options: WriteOptions, depth: Int) throws(WireError) {
        switch value {
        case .null:
            writeNull()
        case .bool(let flag):
            writeBool(flag)
        case .integer(let integer):
            writeInteger(integer)
        case .double(let number):
            if number.isFinite {
                writeFiniteDouble(number)
            } else if options.writesNonFiniteAsNull {
                writeNull()
            } else {
                try writeDouble(number)
            }
        case .string(let string):
            writeString(string)
        case .array(let elements):
            guard depth < options.maxDepth else { throw Self.depthError(options.maxDepth) }
            bytes.append(UInt8(ascii: "["))
            var first = true
            for element in elements {
                if first {
                    first = false
                } else {
                    bytes.append(UInt8(ascii: ","))
                }
                try write(element, options: options, depth: depth + 1)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let object):
            guard depth < options.maxDepth else { throw Self.depthError(options.maxDepth) }
            bytes.append(UInt8(ascii: "{"))
            if options.canonical, object.members.count > 1 {
                let members = object.members
                let order = members.indices.sorted { left, right in
                    CanonicalKeyOrder.precedes(members[left].key, members[right].key)
                }
                for (position, memberIndex) in order.enumerated() {
                    if position > 0 {
                        bytes.append(UInt8(ascii: ","))
                    }
                    try writeMember(members[memberIndex], options: options, depth: depth)
                }
            } else {
                var first = true
                for member in object.members {
                    if first {
                        first = false
                    } else {
                        bytes.append(UInt8(ascii: ","))
                    }
                    try writeMember(member, options: options, depth: depth)
                }
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// Appends `"key":value` for a member of an object that sits at `depth`.
    private mutating func writeMember(
        _ member: JSONObject.Member, options: WriteOptions, depth: Int
    ) throws(WireError) {
        writeString(member.key)
        bytes.append(UInt8(ascii: ":"))
        try write(member.value, options: options, depth: depth + 1)
    }

    /// The error for nesting beyond `maxDepth`.
    private static func depthError(_ maxDepth: Int) -> WireError {
        WireError(
            code: .depthLimitExceeded,
            message: "arrays and objects nest deeper than the limit of \(maxDepth)")
    }
}
