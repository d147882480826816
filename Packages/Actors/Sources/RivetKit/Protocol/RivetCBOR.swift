public import RpcWire

/// The CBOR subset RivetKit uses for creation inputs (`input` of `PUT /actors` and `rvt-input`
/// of the query gateway are base64 of CBOR): JSON values to CBOR and back.
///
/// Reading maps byte strings to their base64 text, `undefined` to `null`, bignum tags to
/// integers when they fit, other tags to their content; indefinite lengths are refused.
public enum RivetCBOR {
    /// The deepest nesting read. Deeper input is refused.
    public static let maxDepth = 64

    /// The CBOR encoding of `value`.
    public static func encode(_ value: JSONValue) -> [UInt8] {
        var output: [UInt8] = []
        write(value, into: &output)
        return output
    }

    /// The JSON value of CBOR `bytes`.
    ///
    /// - Throws: ``ActorError`` `message.malformed` for truncated or unsupported input.
    public static func decode(_ bytes: [UInt8]) throws(ActorError) -> JSONValue {
        var reader = Reader(bytes: bytes)
        let value = try reader.value(depth: 0)
        guard reader.offset == bytes.count else { throw .malformed("trailing bytes after the CBOR value") }
        return value
    }

    private static func head(_ major: UInt8, _ argument: UInt64, into output: inout [UInt8]) {
        let type = major << 5
        switch argument {
        case 0 ..< 24:
            output.append(type | UInt8(argument))
        case 24 ..< 0x100:
            output.append(type | 24)
            output.append(UInt8(argument))
        case 0x100 ..< 0x1_0000:
            output.append(type | 25)
            withUnsafeBytes(of: UInt16(argument).bigEndian) { output.append(contentsOf: $0) }
        case 0x1_0000 ..< 0x1_0000_0000:
            output.append(type | 26)
            withUnsafeBytes(of: UInt32(argument).bigEndian) { output.append(contentsOf: $0) }
        default:
            output.append(type | 27)
            withUnsafeBytes(of: argument.bigEndian) { output.append(contentsOf: $0) }
        }
    }

    private static func write(_ value: JSONValue, into output: inout [UInt8]) {
        switch value {
        case .null:
            output.append(0xF6)
        case .bool(let flag):
            output.append(flag ? 0xF5 : 0xF4)
        case .integer(let number):
            if number >= 0 {
                head(0, UInt64(number), into: &output)
            } else {
                head(1, UInt64(-(number + 1)), into: &output)
            }
        case .double(let number):
            output.append(0xFB)
            withUnsafeBytes(of: number.bitPattern.bigEndian) { output.append(contentsOf: $0) }
        case .string(let text):
            head(3, UInt64(text.utf8.count), into: &output)
            output.append(contentsOf: text.utf8)
        case .array(let elements):
            head(4, UInt64(elements.count), into: &output)
            for element in elements { write(element, into: &output) }
        case .object(let object):
            head(5, UInt64(object.count), into: &output)
            for (key, member) in object {
                write(.string(key), into: &output)
                write(member, into: &output)
            }
        }
    }

    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        mutating func byte() throws(ActorError) -> UInt8 {
            guard offset < bytes.count else { throw .malformed("truncated CBOR") }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func take(_ count: UInt64) throws(ActorError) -> ArraySlice<UInt8> {
            guard count <= UInt64(bytes.count - offset) else { throw .malformed("truncated CBOR") }
            let end = offset + Int(count)
            defer { offset = end }
            return bytes[offset ..< end]
        }

        mutating func argument(_ info: UInt8) throws(ActorError) -> UInt64 {
            switch info {
            case 0 ..< 24: return UInt64(info)
            case 24: return UInt64(try byte())
            case 25, 26, 27:
                let width = 1 << (info - 24)
                return try take(UInt64(width)).reduce(0) { $0 << 8 | UInt64($1) }
            default: throw .malformed("indefinite or reserved CBOR lengths are not supported")
            }
        }

        mutating func value(depth: Int) throws(ActorError) -> JSONValue {
            guard depth < RivetCBOR.maxDepth else { throw .malformed("CBOR nested deeper than \(RivetCBOR.maxDepth)") }
            let initial = try byte()
            let major = initial >> 5
            let info = initial & 0x1F
            if major == 7 {
                return try simple(info)
            }
            let argument = try argument(info)
            switch major {
            case 0:
                return Int64(exactly: argument).map(JSONValue.integer) ?? .double(Double(argument))
            case 1:
                return Int64(exactly: argument).map { .integer(-1 - $0) } ?? .double(-1 - Double(argument))
            case 2:
                return .string(base64(Array(try take(argument))))
            case 3:
                guard let text = String(validating: try take(argument), as: UTF8.self) else {
                    throw .malformed("CBOR text is not UTF-8")
                }
                return .string(text)
            case 4:
                guard argument <= UInt64(bytes.count - offset) else { throw .malformed("truncated CBOR") }
                var elements: [JSONValue] = []
                for _ in 0 ..< argument { elements.append(try value(depth: depth + 1)) }
                return .array(elements)
            case 5:
                guard argument <= UInt64(bytes.count - offset) else { throw .malformed("truncated CBOR") }
                var object = JSONObject()
                for _ in 0 ..< argument {
                    let key = try value(depth: depth + 1)
                    // A JSON member name is text: a scalar key is written as JSON writes it. An
                    // array or map key is refused: its text would hold the escaped text of every
                    // key nested in it, doubling at each level.
                    switch key {
                    case .array, .object: throw .malformed("a CBOR map key is an array or a map")
                    default: break
                    }
                    let member = try value(depth: depth + 1)
                    _ = object.updateValue(member, forKey: key.stringValue ?? key.description)
                }
                return .object(object)
            default:  // 6: a tag
                let content = try value(depth: depth + 1)
                if argument == 2 || argument == 3, case .string(let encoded) = content,
                    let magnitude = Self.unsigned(fromBase64: encoded)
                {
                    if argument == 2 { return Int64(exactly: magnitude).map(JSONValue.integer) ?? .string(String(magnitude)) }
                    // -1 - magnitude, written in decimal: magnitude + 1 overflows for UInt64.max.
                    if let small = Int64(exactly: magnitude) { return .integer(-1 - small) }
                    let (next, overflow) = magnitude.addingReportingOverflow(1)
                    return .string(overflow ? "-18446744073709551616" : "-" + String(next))
                }
                return content
            }
        }

        mutating func simple(_ info: UInt8) throws(ActorError) -> JSONValue {
            switch info {
            case 20: return .bool(false)
            case 21: return .bool(true)
            case 22, 23: return .null
            case 25:
                let bits = UInt16(try take(2).reduce(0) { $0 << 8 | UInt64($1) })
                let exponent = Int((bits >> 10) & 0x1F)
                let mantissa = Double(bits & 0x3FF)
                let sign: FloatingPointSign = bits & 0x8000 == 0 ? .plus : .minus
                switch exponent {
                case 0: return .double(Double(sign: sign, exponent: -24, significand: mantissa))
                case 31: return .double(mantissa == 0 ? (sign == .plus ? .infinity : -.infinity) : .nan)
                default: return .double(Double(sign: sign, exponent: exponent - 25, significand: mantissa + 1024))
                }
            case 26:
                let bits = UInt32(try take(4).reduce(0) { $0 << 8 | UInt64($1) })
                return .double(Double(Float(bitPattern: bits)))
            case 27:
                return .double(Double(bitPattern: try take(8).reduce(0) { $0 << 8 | UInt64($1) }))
            default:
                throw .malformed("unsupported CBOR simple value \(info)")
            }
        }

        static func unsigned(fromBase64 text: String) -> UInt64? {
            guard let bytes = Base64.decode(text, acceptingURLSafe: true), bytes.count <= 8 else { return nil }
            return bytes.reduce(0) { $0 << 8 | UInt64($1) }
        }

        func base64(_ bytes: [UInt8]) -> String {
            Base64.encode(bytes, padded: true)
        }
    }
}
