/// Standard base64 (RFC 4648, section 4) for the textual form of public key pins.
package enum PublicKeyPinBase64 {
    private static let alphabet: [UInt8] = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8
    )

    /// Encodes bytes with padding.
    package static func encode(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let remaining = bytes.count - index
            let first = bytes[index]
            let second = remaining > 1 ? bytes[index + 1] : 0
            let third = remaining > 2 ? bytes[index + 2] : 0
            output.append(alphabet[Int(first >> 2)])
            output.append(alphabet[Int((first & 0x03) << 4 | second >> 4)])
            output.append(remaining > 1 ? alphabet[Int((second & 0x0F) << 2 | third >> 6)] : UInt8(ascii: "="))
            output.append(remaining > 2 ? alphabet[Int(third & 0x3F)] : UInt8(ascii: "="))
            index += 3
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes padded or unpadded base64; `nil` for any other character or a malformed length.
    package static func decode(_ text: Substring) -> [UInt8]? {
        var symbols = Array(text.utf8)
        while symbols.last == UInt8(ascii: "=") {
            symbols.removeLast()
        }
        let paddingCount = text.utf8.count - symbols.count
        guard paddingCount <= 2, symbols.count % 4 != 1 else { return nil }
        if paddingCount > 0, (symbols.count + paddingCount) % 4 != 0 { return nil }

        var output: [UInt8] = []
        output.reserveCapacity(symbols.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bitCount = 0
        for symbol in symbols {
            guard let value = sextet(symbol) else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bitCount += 6
            if bitCount >= 8 {
                bitCount -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bitCount)))
            }
        }
        return output
    }

    private static func sextet(_ symbol: UInt8) -> UInt8? {
        switch symbol {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): symbol - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): symbol - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): symbol - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }
}
