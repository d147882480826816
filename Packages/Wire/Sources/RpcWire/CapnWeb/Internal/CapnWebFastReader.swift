/// Reads the common Cap'n Web messages straight from their bytes, without a JSON tree.
///
/// It knows the forms a session exchanges on every call: the eight message kinds, JSON
/// strings without escapes, integers and other numbers, `true`, `false`, `null`, objects,
/// escaped literal arrays, `pipeline`, `import`, `export`, `promise`, `date`, `undefined`,
/// `inf`, `-inf` and `nan`. On anything else (an escape in a string, another special form, a
/// duplicate key, nesting near the depth limit, or any malformed input) it gives up with
/// `nil`, and ``CapnWebCodec`` decodes the message through the JSON tree, which knows every
/// form and words every error. So whatever it returns is exactly what the tree decoder returns
/// for the same bytes; it only saves the tree.
struct CapnWebFastReader {
    private let base: UnsafePointer<UInt8>
    private let end: Int
    private var index = 0
    /// Nesting of the array or object being read; the message array is at depth 1.
    private var depth = 0
    /// Deeper than this the reader gives up: one level short of the codec's limit (and never
    /// deeper than a recursion that is cheap on any stack).
    private let depthLimit: Int

    /// Objects with more members than this are left to the tree decoder, whose key index makes
    /// the duplicate check linear.
    private static let memberLimit = 32

    private init(base: UnsafePointer<UInt8>, count: Int, maxDepth: Int) {
        self.base = base
        end = count
        // A limit of zero or less (or Int.min) leaves everything to the tree decoder.
        depthLimit = maxDepth > 0 ? min(maxDepth - 1, 64) : 0
    }

    /// The message in `bytes`, or `nil` when the bytes need the full decoder.
    static func message(in bytes: UnsafeRawBufferPointer, maxDepth: Int) -> CapnWebMessage? {
        guard let start = bytes.baseAddress, !bytes.isEmpty else { return nil }
        var reader = CapnWebFastReader(
            base: start.assumingMemoryBound(to: UInt8.self), count: bytes.count, maxDepth: maxDepth)
        guard let message = reader.message() else { return nil }
        reader.skipWhitespace()
        return reader.index == reader.end ? message : nil
    }

    // MARK: - Messages

    private mutating func message() -> CapnWebMessage? {
        guard consume(UInt8(ascii: "[")), enter() else { return nil }
        skipWhitespace()
        guard let tag = tag() else { return nil }
        let message: CapnWebMessage
        switch tag {
        case .push, .abort, .stream:
            guard consume(UInt8(ascii: ",")), let value = expression() else { return nil }
            message = tag == .push ? .push(value) : tag == .abort ? .abort(value) : .stream(value)
        case .pull:
            guard consume(UInt8(ascii: ",")), let id = integer() else { return nil }
            message = .pull(importID: id)
        case .resolve, .reject:
            guard consume(UInt8(ascii: ",")), let id = integer(),
                consume(UInt8(ascii: ",")), let value = expression()
            else { return nil }
            message = tag == .resolve ? .resolve(exportID: id, value: value) : .reject(exportID: id, value: value)
        case .release:
            guard consume(UInt8(ascii: ",")), let id = integer(),
                consume(UInt8(ascii: ",")), let refcount = integer()
            else { return nil }
            message = .release(importID: id, refcount: refcount)
        case .pipe:
            message = .pipe
        default:
            return nil
        }
        guard consume(UInt8(ascii: "]")) else { return nil }
        depth -= 1
        return message
    }

    // MARK: - Expressions

    /// The expression starting at the next value.
    private mutating func expression() -> CapnWebExpression? {
        skipWhitespace()
        guard index < end else { return nil }
        switch base[index] {
        case UInt8(ascii: "\""):
            return string().map(CapnWebExpression.string)
        case UInt8(ascii: "-"), UInt8(ascii: "0") ... UInt8(ascii: "9"):
            switch number() {
            case .integer(let value)?: return .integer(value)
            case .double(let value)?: return .double(value)
            case nil: return nil
            }
        case UInt8(ascii: "t"):
            return literal("true") ? .bool(true) : nil
        case UInt8(ascii: "f"):
            return literal("false") ? .bool(false) : nil
        case UInt8(ascii: "n"):
            return literal("null") ? .null : nil
        case UInt8(ascii: "{"):
            return object()
        case UInt8(ascii: "["):
            return array()
        default:
            return nil
        }
    }

    private mutating func object() -> CapnWebExpression? {
        // Room is made at the first member, so that `{}` allocates nothing.
        var members: [CapnWebMember] = []
        let complete = elements(closedBy: UInt8(ascii: "}")) { reader in
            reader.skipWhitespace()
            guard reader.index < reader.end, reader.base[reader.index] == UInt8(ascii: "\""),
                let key = reader.string(), members.count < Self.memberLimit,
                !members.contains(where: { $0.key == key }),
                reader.consume(UInt8(ascii: ":")), let value = reader.expression()
            else { return false }
            if members.isEmpty { members.reserveCapacity(8) }
            members.append(CapnWebMember(key, value))
            return true
        }
        return complete ? .object(members) : nil
    }

    /// An escaped literal array `[[...]]` or a special form `["tag", ...]`.
    private mutating func array() -> CapnWebExpression? {
        index += 1
        guard enter() else { return nil }
        skipWhitespace()
        guard index < end else { return nil }
        let result: CapnWebExpression
        switch base[index] {
        case UInt8(ascii: "["):
            guard let elements = expressionList() else { return nil }
            result = .array(elements)
        case UInt8(ascii: "\""):
            guard let tag = tag(), let form = specialForm(tag) else { return nil }
            result = form
        default:
            return nil
        }
        guard consume(UInt8(ascii: "]")) else { return nil }
        depth -= 1
        return result
    }

    /// The operands of a special form after its tag, up to (not including) the closing bracket.
    private mutating func specialForm(_ tag: Tag) -> CapnWebExpression? {
        switch tag {
        case .undefined: return .undefined
        case .inf: return .infinity
        case .negativeInf: return .negativeInfinity
        case .nan: return .nan
        case .export, .promise:
            guard consume(UInt8(ascii: ",")), let id = integer() else { return nil }
            return tag == .export ? .export(id) : .promise(id)
        case .date:
            guard consume(UInt8(ascii: ",")) else { return nil }
            skipWhitespace()
            if literal("null") { return .date(nil) }
            switch number() {
            case .integer(let value)?: return .date(CapnWebDate.timeClip(Double(value)))
            case .double(let value)?: return .date(CapnWebDate.timeClip(value))
            case nil: return nil
            }
        case .pipeline, .import:
            guard consume(UInt8(ascii: ",")), let id = integer() else { return nil }
            var path: [CapnWebPathKey]? = nil
            var arguments: [CapnWebExpression]? = nil
            if consume(UInt8(ascii: ",")) {
                guard let keys = pathKeys() else { return nil }
                path = keys
                if consume(UInt8(ascii: ",")) {
                    skipWhitespace()
                    guard index < end, base[index] == UInt8(ascii: "["), let list = expressionList() else {
                        return nil
                    }
                    arguments = list
                }
            }
            return tag == .pipeline
                ? .pipeline(id, path: path, arguments: arguments)
                : .import(id, path: path, arguments: arguments)
        default:
            return nil
        }
    }

    /// A plain JSON array of expressions starting at `index` (an opening bracket).
    private mutating func expressionList() -> [CapnWebExpression]? {
        var list: [CapnWebExpression] = []
        let complete = elements(closedBy: UInt8(ascii: "]")) { reader in
            guard let element = reader.expression() else { return false }
            list.append(element)
            return true
        }
        return complete ? list : nil
    }

    /// A property path: an array of strings and integers.
    private mutating func pathKeys() -> [CapnWebPathKey]? {
        skipWhitespace()
        guard index < end, base[index] == UInt8(ascii: "[") else { return nil }
        var keys: [CapnWebPathKey] = []
        let complete = elements(closedBy: UInt8(ascii: "]")) { reader in
            reader.skipWhitespace()
            guard reader.index < reader.end else { return false }
            if reader.base[reader.index] == UInt8(ascii: "\"") {
                guard let name = reader.string() else { return false }
                keys.append(.property(name))
            } else {
                guard case .integer(let position)? = reader.number() else { return false }
                keys.append(.index(position))
            }
            return true
        }
        return complete ? keys : nil
    }

    /// Reads the comma-separated elements of the array or object whose opening bracket is at
    /// `index`, up to `closer`, with `element` reading each one; false when `element` gives up,
    /// the list is malformed or it nests deeper than this reader goes.
    private mutating func elements(
        closedBy closer: UInt8, _ element: (inout CapnWebFastReader) -> Bool
    ) -> Bool {
        index += 1
        guard enter() else { return false }
        skipWhitespace()
        if index < end, base[index] == closer {
            index += 1
            depth -= 1
            return true
        }
        repeat {
            guard element(&self) else { return false }
        } while consume(UInt8(ascii: ","))
        guard consume(closer) else { return false }
        depth -= 1
        return true
    }

    // MARK: - Tags

    /// The tags this reader knows, message and expression tags alike.
    enum Tag: CaseIterable {
        case push, pull, resolve, reject, release, abort, stream, pipe
        case pipeline, `import`, export, promise, date, undefined, inf, negativeInf, nan
    }

    /// The tag string at the next value, when it is one this reader knows.
    private mutating func tag() -> Tag? {
        guard index < end, base[index] == UInt8(ascii: "\"") else { return nil }
        let start = index + 1
        var stop = start
        while stop < end, base[stop] != UInt8(ascii: "\"") {
            // Every known tag is lower-case ASCII letters and '-'; anything else is not one.
            let byte = base[stop]
            guard (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || byte == UInt8(ascii: "-") else {
                return nil
            }
            stop += 1
        }
        guard stop < end else { return nil }
        index = stop + 1
        return Self.tag(spelledBy: UnsafeBufferPointer(start: base + start, count: stop - start))
    }

    /// The tag `text` spells, when it is one this reader knows.
    ///
    /// Up to eight bytes are packed into one little-endian word and compared with each tag's
    /// word, instead of comparing with each tag's text in turn.
    static func tag(spelledBy text: UnsafeBufferPointer<UInt8>) -> Tag? {
        guard text.count <= 9 else { return nil }
        var word: UInt64 = 0
        for offset in 0 ..< min(text.count, 8) {
            word |= UInt64(text[offset]) << UInt64(offset * 8)
        }
        switch (text.count, word) {
        case (3, 0x66_6E69): return .inf
        case (3, 0x6E_616E): return .nan
        case (4, 0x6873_7570): return .push
        case (4, 0x6C6C_7570): return .pull
        case (4, 0x6570_6970): return .pipe
        case (4, 0x666E_692D): return .negativeInf
        case (4, 0x6574_6164): return .date
        case (5, 0x74_726F_6261): return .abort
        case (6, 0x7463_656A_6572): return .reject
        case (6, 0x6D61_6572_7473): return .stream
        case (6, 0x7472_6F70_6D69): return .import
        case (6, 0x7472_6F70_7865): return .export
        case (7, 0x65_766C_6F73_6572): return .resolve
        case (7, 0x65_7361_656C_6572): return .release
        case (7, 0x65_7369_6D6F_7270): return .promise
        case (8, 0x656E_696C_6570_6970): return .pipeline
        case (9, 0x656E_6966_6564_6E75) where text[8] == UInt8(ascii: "d"): return .undefined
        default: return nil
        }
    }

    // MARK: - Scalars

    /// The string whose opening quote is at `index`, when it has no escapes and is valid UTF-8.
    private mutating func string() -> String? {
        let start = index + 1
        var stop = start
        var isASCII = true
        while stop < end {
            let byte = base[stop]
            if byte == UInt8(ascii: "\"") { break }
            // An escape, or a control character the JSON grammar forbids.
            if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
            if byte >= 0x80 { isASCII = false }
            stop += 1
        }
        guard stop < end else { return nil }
        index = stop + 1
        let count = stop - start
        let bytes = UnsafeBufferPointer(start: base + start, count: count)
        if isASCII {
            if count > 15, let string = CheckedUTF8.string(base + start, count: count, isASCII: true) {
                return string
            }
            return String(decoding: bytes, as: UTF8.self)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// A number read as the JSON parser reads it.
    private enum Number {
        case integer(Int64)
        case double(Double)
    }

    /// The number at `index`: an integer of up to 18 digits, or a finite number in any other
    /// valid form; `nil` for `-0`, longer integers and anything malformed.
    private mutating func number() -> Number? {
        let start = index
        var offset = index
        let negative = offset < end && base[offset] == UInt8(ascii: "-")
        if negative { offset += 1 }
        guard offset < end, Self.isDigit(base[offset]) else { return nil }
        // Every digit of the integer and fraction parts; exact while there are at most 18.
        var mantissa: UInt64 = 0
        var digits = 0
        if base[offset] == UInt8(ascii: "0") {
            offset += 1
            if offset < end, Self.isDigit(base[offset]) { return nil }
        } else {
            while offset < end, Self.isDigit(base[offset]) {
                mantissa = mantissa &* 10 &+ UInt64(base[offset] &- UInt8(ascii: "0"))
                digits += 1
                offset += 1
            }
        }
        let integerDigits = digits
        var isInteger = true
        if offset < end, base[offset] == UInt8(ascii: ".") {
            isInteger = false
            offset += 1
            guard offset < end, Self.isDigit(base[offset]) else { return nil }
            while offset < end, Self.isDigit(base[offset]) {
                mantissa = mantissa &* 10 &+ UInt64(base[offset] &- UInt8(ascii: "0"))
                digits += 1
                offset += 1
            }
        }
        let fractionDigits = digits - integerDigits
        var exponent = 0
        if offset < end, base[offset] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            offset += 1
            var exponentNegative = false
            if offset < end, base[offset] == UInt8(ascii: "-") || base[offset] == UInt8(ascii: "+") {
                exponentNegative = base[offset] == UInt8(ascii: "-")
                offset += 1
            }
            guard offset < end, Self.isDigit(base[offset]) else { return nil }
            while offset < end, Self.isDigit(base[offset]) {
                if exponent < 100_000 { exponent = exponent &* 10 &+ Int(base[offset] &- UInt8(ascii: "0")) }
                offset += 1
            }
            if exponentNegative { exponent = -exponent }
        }
        index = offset
        if isInteger {
            // `-0` is a double to the parser, and longer integers need its exact rules.
            guard integerDigits <= 18, !(negative && mantissa == 0) else { return nil }
            let magnitude = Int64(mantissa)
            return .integer(negative ? -magnitude : magnitude)
        }
        // Both conversions round correctly, so either gives the parser's value.
        if digits <= 18, let magnitude = DecimalConversion.fastPath(mantissa: mantissa, exponent: Int64(exponent - fractionDigits)) {
            return .double(negative ? -magnitude : magnitude)
        }
        let value = DecimalConversion.double(
            fromLiteral: UnsafeBufferPointer(start: base + start, count: offset - start))
        return value.isFinite ? .double(value) : nil
    }

    /// An ID or count: an integer in the form ``number()`` reads exactly.
    private mutating func integer() -> Int64? {
        skipWhitespace()
        guard case .integer(let value)? = number() else { return nil }
        return value
    }

    /// Whether the bytes at `index` spell `word` (consumed when they do).
    private mutating func literal(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard end - index >= count else { return false }
        let bytes = UnsafeBufferPointer(start: word.utf8Start, count: count)
        guard UnsafeBufferPointer(start: base + index, count: count).elementsEqual(bytes) else { return false }
        index += count
        return true
    }

    // MARK: - Structure

    /// Skips white space and consumes `byte` when it comes next.
    private mutating func consume(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard index < end, base[index] == byte else { return false }
        index += 1
        return true
    }

    /// Steps into an array or object; false when that is deeper than this reader goes.
    private mutating func enter() -> Bool {
        depth += 1
        return depth <= depthLimit
    }

    private mutating func skipWhitespace() {
        while index < end {
            let byte = base[index]
            guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return }
            index += 1
        }
    }

    @inline(__always)
    private static func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10
    }
}
