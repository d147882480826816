/// Query strings of request targets: splitting off the query and taking it apart into
/// percent-decoded parameters, and building one from parameters.
public enum HTTPQuery {
    /// The query of a request target (`/path?query#fragment`), without `?` and fragment; empty
    /// when there is none.
    public static func query(of uri: String) -> String {
        guard let mark = uri.firstIndex(of: "?") else { return "" }
        var query = uri[uri.index(after: mark)...]
        if let fragment = query.firstIndex(of: "#") {
            query = query[..<fragment]
        }
        return String(query)
    }

    /// The parameters of a query, in order, names and values percent-decoded with `+` as a
    /// space. A parameter without `=` has an empty value; malformed escapes are kept as written.
    public static func items(of query: String) -> [(name: String, value: String)] {
        query.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            if let equals = pair.firstIndex(of: "=") {
                return (decode(pair[..<equals]), decode(pair[pair.index(after: equals)...]))
            }
            return (decode(pair[...]), "")
        }
    }

    /// A query string for `items`, names and values percent-encoded so that only unreserved
    /// characters (`A–Z a–z 0–9 - . _ ~`) stay as they are.
    public static func encode(_ items: [(name: String, value: String)]) -> String {
        items.map { "\(percentEncode($0.name))=\(percentEncode($0.value))" }.joined(separator: "&")
    }

    /// `text` with every byte but the unreserved characters (`A–Z a–z 0–9 - . _ ~`) written
    /// as `%XX`, as `encodeURIComponent` does for those outside its reserved set.
    public static func percentEncode(_ text: String) -> String {
        var output = ""
        output.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if isUnreserved(byte) {
                output.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                output += "%"
                output.unicodeScalars.append(Unicode.Scalar(hexDigits[Int(byte >> 4)]))
                output.unicodeScalars.append(Unicode.Scalar(hexDigits[Int(byte & 0x0F)]))
            }
        }
        return output
    }

    /// Percent-decodes `text`, with `+` as a space; escapes that are malformed or do not form
    /// UTF-8 are kept as written.
    public static func decode(_ text: Substring) -> String {
        percentDecodedBytes(text, strict: false).flatMap { String(validating: $0, as: UTF8.self) } ?? String(text)
    }

    /// Percent-decodes `text`, with `+` as a space, strictly: `nil` when a `%` is not followed
    /// by two hex digits or the bytes are not UTF-8, so one decoded text has one written form
    /// up to the case of hex digits and `+` for a space.
    public static func decodeStrictly(_ text: Substring) -> String? {
        percentDecodedBytes(text, strict: true).flatMap { String(validating: $0, as: UTF8.self) }
    }

    /// The bytes `text` percent-decodes to; a malformed escape is kept as written, or makes the
    /// result `nil` when `strict`.
    /// Percent-decodes a part of a URL outside its query (a user name, a password, a path
    /// segment), where `+` is itself: `nil` when a `%` is not followed by two hex digits or the
    /// bytes are not UTF-8.
    static func decodeComponent(_ text: Substring) -> String? {
        percentDecodedBytes(text, strict: true, plusIsSpace: false).flatMap { String(validating: $0, as: UTF8.self) }
    }

    private static func percentDecodedBytes(_ text: Substring, strict: Bool, plusIsSpace: Bool = true) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var utf8 = Array(text.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "+"), plusIsSpace {
                bytes.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%"), utf8.count >= 2,
                let high = hexValue(utf8[utf8.startIndex]),
                let low = hexValue(utf8[utf8.startIndex + 1])
            {
                bytes.append(high << 4 | low)
                utf8 = utf8.dropFirst(2)
            } else if byte == UInt8(ascii: "%"), strict {
                return nil
            } else {
                bytes.append(byte)
            }
        }
        return bytes
    }

    private static let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A") ... UInt8(ascii: "Z"), UInt8(ascii: "a") ... UInt8(ascii: "z"),
            UInt8(ascii: "0") ... UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0") ... UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a") ... UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A") ... UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
