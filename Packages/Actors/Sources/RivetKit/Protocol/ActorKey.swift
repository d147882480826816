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
            for scalar in part.unicodeScalars {
                switch scalar {
                case "\\": escaped += "\\\\"
                case "/": escaped += "\\/"
                default: escaped.unicodeScalars.append(scalar)
                }
            }
            return escaped
        }.joined(separator: "/")
    }

    /// The parts of a serialized key, read leniently as RivetKit's own reader does (an unknown
    /// escape stands for the character after it, a trailing `\` for itself, `""` for the
    /// empty key). A server reads keys with ``parse(serialized:)``, which refuses what this
    /// accepts without ``serialize(_:)`` writing it, so one key has one form.
    public static func deserialize(_ text: String) -> [String] {
        if let parts = try? parse(serialized: text) { return parts }
        var parts: [String] = []
        var current = ""
        var escaping = false
        var emptyMarker = false
        for character in text.unicodeScalars {
            if escaping {
                escaping = false
                if character == "0" {
                    emptyMarker = true
                } else {
                    current.unicodeScalars.append(character)
                }
            } else if character == "\\" {
                escaping = true
            } else if character == "/" {
                parts.append(emptyMarker && current.isEmpty ? "" : current)
                current = ""
                emptyMarker = false
            } else {
                current.unicodeScalars.append(character)
            }
        }
        if escaping { current.unicodeScalars.append("\\") }
        parts.append(current)
        return parts
    }

    /// The parts of a serialized key, strictly: exactly the texts ``serialize(_:)`` writes are
    /// read (and `""`, which RivetKit reads as the empty key), so two different texts never
    /// name one key. Any character may stand in a part, NUL and separators included, escaped
    /// as ``serialize(_:)`` escapes them.
    ///
    /// - Throws: ``ActorError`` `actor.invalid_key` for an escape other than `\\`, `\/` or
    ///   a `\0` standing alone for an empty part, and for a trailing `\`.
    public static func parse(serialized text: String) throws(ActorError) -> [String] {
        guard text != "/", !text.isEmpty else { return [] }
        var parts: [String] = []
        var current = ""
        var escaping = false
        var emptyMarker = false
        for character in text.unicodeScalars {
            if emptyMarker, character != "/" {
                throw invalidKey("\\0 stands alone for an empty part")
            }
            if escaping {
                escaping = false
                switch character {
                case "0" where current.isEmpty: emptyMarker = true
                case "\\", "/": current.unicodeScalars.append(character)
                default: throw invalidKey("\\\(character) is not an escape of a key")
                }
            } else if character == "\\" {
                escaping = true
            } else if character == "/" {
                guard emptyMarker || !current.isEmpty else { throw invalidKey("an empty part is written \\0") }
                parts.append(current)
                current = ""
                emptyMarker = false
            } else {
                current.unicodeScalars.append(character)
            }
        }
        guard !escaping else { throw invalidKey("the key ends inside an escape") }
        guard emptyMarker || !current.isEmpty else { throw invalidKey("an empty part is written \\0") }
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

    /// The parts of a raw (not yet decoded) `rvt-key` query value, read leniently (malformed
    /// escapes kept as written); `""`, a present but empty value, is the key `[""]`, since an
    /// empty key omits the parameter. A server reads it with ``parse(queryValue:)``.
    public static func parts(ofQueryValue raw: String) -> [String] {
        if let parts = try? parse(queryValue: raw) { return parts }
        return raw.split(separator: ",", omittingEmptySubsequences: false).map(formDecode)
    }

    /// The parts of a raw (not yet decoded) `rvt-key` query value, strictly: split at its
    /// literal commas, each part form-decoded (`+` a space, `%XX` a byte) to UTF-8. A present
    /// but empty value is the key `[""]`; the empty key is written by leaving the parameter out.
    ///
    /// - Throws: ``ActorError`` `actor.invalid_key` for a `%` not followed by two hex digits
    ///   and for bytes that are not UTF-8.
    public static func parse(queryValue raw: String) throws(ActorError) -> [String] {
        var parts: [String] = []
        for piece in raw.split(separator: ",", omittingEmptySubsequences: false) {
            guard let part = HTTPQuery.decodeStrictly(piece) else {
                throw invalidKey("a part of rvt-key has a % not followed by two hex digits, or is not UTF-8")
            }
            parts.append(part)
        }
        return parts
    }

    /// The error for a key that is not written as RivetKit writes keys (`actor.invalid_key`).
    public static func invalidKey(_ why: String) -> ActorError {
        ActorError(.actorInvalidKey, "malformed actor key: \(why)")
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
