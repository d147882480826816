/// The LZ77 window sizes permessage-deflate can negotiate, as base-2 logarithms.
enum DeflateWindowBits {
    /// The smallest window the protocol allows: 256 bytes.
    static let minimum = 8
    /// The largest window the protocol allows, and the default: 32 KiB.
    static let maximum = 15
    /// The smallest window zlib compresses raw deflate with.
    static let minimumForCompression = 9

    /// `bits` moved into `minimum...maximum`.
    static func clamped(_ bits: Int) -> Int {
        min(max(bits, minimum), maximum)
    }

    /// Parses a window size parameter value: a decimal integer from 8 to 15 without leading
    /// zeroes, `nil` for anything else.
    static func parse(_ text: Substring) -> Int? {
        guard let first = text.first, first != "0", text.count <= 2 else { return nil }
        guard text.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(text) else { return nil }
        return (minimum ... maximum).contains(value) ? value : nil
    }
}
