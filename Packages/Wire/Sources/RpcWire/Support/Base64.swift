/// Base64 (RFC 4648): the one codec of the stack, for Cap'n Web `bytes`, public key pins and
/// RivetKit's creation inputs.
///
/// The encoder writes the standard alphabet (section 4) without `=` padding by default, as the
/// Cap'n Web reference sender does; `padded` adds it, `urlSafe` writes the URL-safe alphabet
/// (section 5, `-` and `_`). The decoder accepts padded and unpadded text, and rejects
/// characters outside the alphabet (the URL-safe one too only when asked), lengths no encoding
/// can have (one character past a group of four) and padding anywhere but at the end of the
/// last group.
///
/// ```swift
/// Base64.encode([0xFB, 0xFF], padded: true)     // "+/8="
/// Base64.decode("-_8", acceptingURLSafe: true)   // [0xFB, 0xFF]
/// ```
public enum Base64 {
    /// The 64 characters of the alphabet, by value.
    private static let alphabet: [UInt8] = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Marks a byte that is not in the alphabet.
    private static let invalid: UInt8 = 0xFF

    /// The value of each byte of the alphabet; ``invalid`` for every other byte.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: invalid, count: 256)
        for (value, character) in alphabet.enumerated() {
            table[Int(character)] = UInt8(value)
        }
        return table
    }()

    /// ``values`` with the URL-safe `-` and `_` read as 62 and 63 too.
    private static let valuesWithURLSafe: [UInt8] = {
        var table = values
        table[Int(UInt8(ascii: "-"))] = 62
        table[Int(UInt8(ascii: "_"))] = 63
        return table
    }()

    /// The number of characters the unpadded encoding of `count` bytes takes.
    package static func encodedLength(of count: Int) -> Int {
        let (groups, rest) = count.quotientAndRemainder(dividingBy: 3)
        return groups * 4 + (rest == 0 ? 0 : rest + 1)
    }

    /// Appends the unpadded encoding of `bytes` to `output`.
    package static func encode(_ bytes: [UInt8], into output: inout [UInt8]) {
        output.reserveCapacity(output.count + encodedLength(of: bytes.count))
        alphabet.withUnsafeBufferPointer { table in
            var index = 0
            let fullEnd = bytes.count - bytes.count % 3
            while index < fullEnd {
                let chunk = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8
                    | UInt32(bytes[index + 2])
                output.append(table[Int(chunk >> 18 & 0x3F)])
                output.append(table[Int(chunk >> 12 & 0x3F)])
                output.append(table[Int(chunk >> 6 & 0x3F)])
                output.append(table[Int(chunk & 0x3F)])
                index += 3
            }
            switch bytes.count - fullEnd {
            case 1:
                let chunk = UInt32(bytes[index]) << 16
                output.append(table[Int(chunk >> 18 & 0x3F)])
                output.append(table[Int(chunk >> 12 & 0x3F)])
            case 2:
                let chunk = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8
                output.append(table[Int(chunk >> 18 & 0x3F)])
                output.append(table[Int(chunk >> 12 & 0x3F)])
                output.append(table[Int(chunk >> 6 & 0x3F)])
            default:
                break
            }
        }
    }

    /// The encoding of `bytes`.
    ///
    /// - Parameters:
    ///   - bytes: What to encode.
    ///   - padded: Whether the last group is completed with `=` to four characters.
    ///   - urlSafe: Whether `-` and `_` stand for 62 and 63 instead of `+` and `/`.
    public static func encode(_ bytes: [UInt8], padded: Bool = false, urlSafe: Bool = false) -> String {
        var output: [UInt8] = []
        encode(bytes, into: &output)
        if urlSafe {
            for index in output.indices {
                switch output[index] {
                case UInt8(ascii: "+"): output[index] = UInt8(ascii: "-")
                case UInt8(ascii: "/"): output[index] = UInt8(ascii: "_")
                default: break
                }
            }
        }
        if padded {
            while output.count % 4 != 0 { output.append(UInt8(ascii: "=")) }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The bytes `text` encodes, or `nil` when it is not valid base64.
    ///
    /// - Parameters:
    ///   - text: Padded or unpadded base64.
    ///   - acceptingURLSafe: Whether `-` and `_` are read as 62 and 63 as well as `+` and `/`.
    public static func decode(_ text: some StringProtocol, acceptingURLSafe: Bool = false) -> [UInt8]? {
        var text = String(text)
        return text.withUTF8 { decode(utf8: $0, acceptingURLSafe: acceptingURLSafe) }
    }

    /// The bytes `characters` encode, or `nil` when they are not valid base64.
    package static func decode(utf8 characters: UnsafeBufferPointer<UInt8>, acceptingURLSafe: Bool = false) -> [UInt8]? {
        var length = characters.count
        var padding = 0
        while padding < 2, length > 0, characters[length - 1] == UInt8(ascii: "=") {
            length -= 1
            padding += 1
        }
        let rest = length % 4
        if rest == 1 {
            return nil
        }
        // Padding, when present, must complete the last group to four characters.
        if padding > 0, rest == 0 || rest + padding != 4 {
            return nil
        }
        var output = [UInt8]()
        output.reserveCapacity(length / 4 * 3 + (rest == 0 ? 0 : rest - 1))
        let valid = (acceptingURLSafe ? valuesWithURLSafe : values).withUnsafeBufferPointer { table -> Bool in
            var index = 0
            let fullEnd = length - rest
            while index < fullEnd {
                let a = table[Int(characters[index])]
                let b = table[Int(characters[index + 1])]
                let c = table[Int(characters[index + 2])]
                let d = table[Int(characters[index + 3])]
                if (a | b | c | d) & 0xC0 != 0 {
                    return false
                }
                let chunk = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                output.append(UInt8(truncatingIfNeeded: chunk >> 16))
                output.append(UInt8(truncatingIfNeeded: chunk >> 8))
                output.append(UInt8(truncatingIfNeeded: chunk))
                index += 4
            }
            guard rest > 0 else { return true }
            let a = table[Int(characters[index])]
            let b = table[Int(characters[index + 1])]
            let c = rest == 3 ? table[Int(characters[index + 2])] : 0
            if (a | b | c) & 0xC0 != 0 {
                return false
            }
            let chunk = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6
            output.append(UInt8(truncatingIfNeeded: chunk >> 16))
            if rest == 3 {
                output.append(UInt8(truncatingIfNeeded: chunk >> 8))
            }
            return true
        }
        return valid ? output : nil
    }
}
