/// Short, printable renderings of fuzz inputs and values for failure messages.
public enum Excerpt {
    /// The first `limit` bytes of `bytes` as text, invalid UTF-8 repaired, with a note of how
    /// many bytes were left out.
    public static func of(_ bytes: [UInt8], limit: Int = 400) -> String {
        let shown = String(decoding: bytes.prefix(limit), as: UTF8.self).debugDescription
        return bytes.count > limit ? "\(shown) (+\(bytes.count - limit) bytes)" : shown
    }

    /// The first `limit` characters of `text`, with a note of how many were left out.
    public static func of(_ text: String, limit: Int = 400) -> String {
        text.count > limit ? "\(text.prefix(limit))... (+\(text.count - limit) characters)" : text
    }
}
