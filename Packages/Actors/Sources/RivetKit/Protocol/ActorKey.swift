import RpcTransportNIO

/// How an actor key (a list of strings) is written where RivetKit needs it as one string.
public enum ActorKey {
    /// The key of `PUT /actors` and `GET /actors?key=`: parts joined with `/`, `\` written
    /// `\\` and `/` written `\/` inside a part, an empty part written `\0`, and an empty key `/`.
    public static func serialize(_ parts: [String]) -> String {
        guard !parts.isEmpty else { return "/" }
        return parts.map { part -> String in
            guard !part.isEmpty else { return "\\0" }
            var escaped = ""
            for character in part {
                switch character {
                case "\\": escaped += "\\\\"
                case "/": escaped += "\\/"
                default: escaped.append(character)
                }
            }
            return escaped
        }.joined(separator: "/")
    }

    /// The parts of a serialized key; the inverse of ``serialize(_:)``.
    public static func deserialize(_ text: String) -> [String] {
        guard text != "/" else { return [] }
        var parts: [String] = []
        var current = ""
        var escaping = false
        var emptyMarker = false
        for character in text {
            if escaping {
                escaping = false
                if character == "0" {
                    emptyMarker = true
                } else {
                    current.append(character)
                }
            } else if character == "\\" {
                escaping = true
            } else if character == "/" {
                parts.append(emptyMarker && current.isEmpty ? "" : current)
                current = ""
                emptyMarker = false
            } else {
                current.append(character)
            }
        }
        parts.append(current)
        return parts
    }

    /// The value of `rvt-key` in a query-gateway URL, as it is written in the query: each part
    /// form-encoded (so a `,` inside a part becomes `%2C`), the parts joined with `,`; `nil`
    /// for an empty key, which omits the parameter.
    public static func queryValue(_ parts: [String]) -> String? {
        guard !parts.isEmpty else { return nil }
        return parts.map(formEncode).joined(separator: ",")
    }

    /// The parts of a raw (not yet decoded) `rvt-key` query value.
    public static func parts(ofQueryValue raw: String) -> [String] {
        guard !raw.isEmpty else { return [] }
        return raw.split(separator: ",", omittingEmptySubsequences: false).map(formDecode)
    }

    /// `text` as `application/x-www-form-urlencoded` writes it: letters, digits and `*-._`
    /// kept, a space as `+`, every other byte as `%XX`.
    public static func formEncode(_ text: String) -> String {
        var output = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a") ... UInt8(ascii: "z"), UInt8(ascii: "A") ... UInt8(ascii: "Z"),
                UInt8(ascii: "0") ... UInt8(ascii: "9"), UInt8(ascii: "*"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "_"):
                output.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: " "):
                output += "+"
            default:
                let digits = Array("0123456789ABCDEF".unicodeScalars)
                output += "%"
                output.unicodeScalars.append(digits[Int(byte >> 4)])
                output.unicodeScalars.append(digits[Int(byte & 0x0F)])
            }
        }
        return output
    }

    /// Decodes form encoding: `+` as a space, `%XX` as a byte; malformed escapes stay as written.
    public static func formDecode(_ text: Substring) -> String {
        HTTPQuery.decode(text)
    }
}
