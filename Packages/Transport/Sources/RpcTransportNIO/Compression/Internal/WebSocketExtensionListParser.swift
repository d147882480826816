/// Parses `Sec-WebSocket-Extensions` header values (RFC 6455, section 9.1).
///
/// The grammar is a comma-separated list of elements, each an extension token followed by
/// `;`-separated parameters of the form `token` or `token=value`, where a value is a token or a
/// quoted string whose unescaped content is itself a token. Optional whitespace may surround
/// every separator, and empty list elements are skipped.
///
/// Parsing is per element: a malformed element yields `nil` in its place, so a server can
/// decline that one offer and still consider the others. An unterminated quoted string swallows
/// the rest of its header value, which then counts as one malformed element.
enum WebSocketExtensionListParser {
    /// Parses every header value, in order, into elements; `nil` marks a malformed element.
    static func parse(_ headerValues: [String]) -> [WebSocketExtensionElement?] {
        var elements: [WebSocketExtensionElement?] = []
        for headerValue in headerValues {
            for piece in split(Array(headerValue.utf8)[...], separator: UInt8(ascii: ",")) {
                let trimmed = trim(piece)
                if trimmed.isEmpty { continue }
                elements.append(parseElement(trimmed))
            }
        }
        return elements
    }

    /// Parses one header value, as the overload taking every value of the header does.
    static func parse(_ headerValue: String) -> [WebSocketExtensionElement?] {
        parse([headerValue])
    }

    /// Parses `token *( ";" parameter )`.
    private static func parseElement(_ bytes: ArraySlice<UInt8>) -> WebSocketExtensionElement? {
        let parts = split(bytes, separator: UInt8(ascii: ";"))
        guard let first = parts.first else { return nil }
        let name = trim(first)
        guard isToken(name) else { return nil }
        var parameters: [WebSocketExtensionElement.Parameter] = []
        for part in parts.dropFirst() {
            guard let parameter = parseParameter(trim(part)) else { return nil }
            parameters.append(parameter)
        }
        return WebSocketExtensionElement(name: string(name), parameters: parameters)
    }

    /// Parses `token [ "=" ( token / quoted-string ) ]`.
    private static func parseParameter(_ bytes: ArraySlice<UInt8>) -> WebSocketExtensionElement.Parameter? {
        guard let equals = bytes.firstIndex(of: UInt8(ascii: "=")) else {
            return isToken(bytes) ? .init(name: string(bytes), value: nil) : nil
        }
        let name = trim(bytes[..<equals])
        let rawValue = trim(bytes[(equals + 1)...])
        guard isToken(name) else { return nil }
        let value: ArraySlice<UInt8>
        if rawValue.first == UInt8(ascii: "\"") {
            guard let unquoted = unquote(rawValue) else { return nil }
            value = unquoted
        } else {
            value = rawValue
        }
        guard isToken(value) else { return nil }
        return .init(name: string(name), value: string(value))
    }

    /// The content of a quoted string with its escapes removed; `nil` unless `bytes` is exactly
    /// one well-formed quoted string.
    private static func unquote(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        guard bytes.count >= 2, bytes.first == UInt8(ascii: "\""), bytes.last == UInt8(ascii: "\"") else {
            return nil
        }
        var content: [UInt8] = []
        var escaped = false
        for byte in bytes.dropFirst().dropLast() {
            if escaped {
                content.append(byte)
                escaped = false
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
            } else if byte == UInt8(ascii: "\"") {
                return nil
            } else {
                content.append(byte)
            }
        }
        return escaped ? nil : content[...]
    }

    /// Splits at every `separator` that is not inside a quoted string.
    private static func split(_ bytes: ArraySlice<UInt8>, separator: UInt8) -> [ArraySlice<UInt8>] {
        var pieces: [ArraySlice<UInt8>] = []
        var start = bytes.startIndex
        var inQuotes = false
        var escaped = false
        for index in bytes.indices {
            let byte = bytes[index]
            if inQuotes {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inQuotes = false
                }
            } else if byte == UInt8(ascii: "\"") {
                inQuotes = true
            } else if byte == separator {
                pieces.append(bytes[start ..< index])
                start = index + 1
            }
        }
        pieces.append(bytes[start...])
        return pieces
    }

    /// `bytes` without leading and trailing spaces and tabs.
    private static func trim(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let isWhitespace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let first = bytes.firstIndex(where: { !isWhitespace($0) }),
            let last = bytes.lastIndex(where: { !isWhitespace($0) })
        else { return bytes[bytes.endIndex...] }
        return bytes[first ... last]
    }

    /// Whether `bytes` is a non-empty HTTP token (RFC 9110, section 5.6.2).
    private static func isToken(_ bytes: ArraySlice<UInt8>) -> Bool {
        !bytes.isEmpty && bytes.allSatisfy(isTokenCharacter)
    }

    /// Whether `byte` is a `tchar`: a letter, a digit or one of ``!#$%&'*+-.^_`|~``.
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a") ... UInt8(ascii: "z"), UInt8(ascii: "A") ... UInt8(ascii: "Z"),
            UInt8(ascii: "0") ... UInt8(ascii: "9"):
            true
        default:
            tokenSymbols.contains(byte)
        }
    }

    /// The non-alphanumeric characters allowed in a token.
    private static let tokenSymbols: Set<UInt8> = Set("!#$%&'*+-.^_`|~".utf8)

    /// The bytes as a string; they are ASCII token characters, so always valid UTF-8.
    private static func string(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }
}
