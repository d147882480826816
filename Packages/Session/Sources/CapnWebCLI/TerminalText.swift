/// Makes text that came from a server safe to write to a terminal.
///
/// A server's error message or value may hold control characters: ESC starts the escape
/// sequences that move the cursor, recolour or retitle a terminal window, BEL rings, CR
/// returns to the start of the line so that what follows overwrites what came before, and the
/// C1 controls (U+0080 to U+009F, with CSI at U+009B) act like ESC sequences on some
/// terminals. The bidirectional formatting characters (the embeddings, overrides and isolates
/// U+202A to U+202E and U+2066 to U+2069, and the marks U+200E, U+200F and U+061C) reorder
/// what a terminal shows, so that a value can read differently from what it is (the "Trojan
/// Source" trick). `capnweb call` writes every such character as an escape instead, in the
/// notation of JavaScript strings: `\r`, `\t`, `\n`, and `\u001b` or `\u202e` for the others.
enum TerminalText {
    /// `text` with every C0 control (U+0000 to U+001F), DEL (U+007F), C1 control (U+0080 to
    /// U+009F) and bidirectional formatting character written as an escape; line feeds stay as
    /// they are when `keepingLineFeeds`.
    ///
    /// A backslash is left alone: escaped text is for reading, not for parsing back.
    static func escaped(_ text: String, keepingLineFeeds: Bool = false) -> String {
        guard text.unicodeScalars.contains(where: { needsEscape($0, keepingLineFeeds: keepingLineFeeds) }) else {
            return text
        }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard needsEscape(scalar, keepingLineFeeds: keepingLineFeeds) else {
                result.append(scalar)
                continue
            }
            result.append(contentsOf: escape(for: scalar).unicodeScalars)
        }
        return String(result)
    }

    /// Whether `scalar` is written as an escape.
    private static func needsEscape(_ scalar: Unicode.Scalar, keepingLineFeeds: Bool) -> Bool {
        switch scalar.value {
        case 0x0A: !keepingLineFeeds
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C: true
        default: false
        }
    }

    /// The escape written for the control character `scalar`.
    private static func escape(for scalar: Unicode.Scalar) -> String {
        switch scalar.value {
        case 0x0A: return "\\n"
        case 0x0D: return "\\r"
        case 0x09: return "\\t"
        default:
            let hex = String(scalar.value, radix: 16)
            return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        }
    }
}
