import Foundation

/// Base64 as RivetKit writes it: standard (with padding) for byte values and `input`, and
/// URL-safe without padding for `rvt-input`.
public enum RivetBase64 {
    /// Standard base64 with padding.
    public static func encode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
    }

    /// Decodes standard or URL-safe base64, padded or not; `nil` for anything else.
    public static func decode(_ text: String) -> [UInt8]? {
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while standard.count % 4 != 0 { standard += "=" }
        return Data(base64Encoded: standard).map { [UInt8]($0) }
    }

    /// URL-safe base64 without padding.
    public static func encodeURLSafe(_ bytes: [UInt8]) -> String {
        var text = encode(bytes).replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }
}
