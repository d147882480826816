/// Checks that bytes are well-formed UTF-8 (RFC 3629): no overlong forms, no surrogates, nothing
/// above U+10FFFF, no truncated sequences.
///
/// Runs of ASCII are skipped eight bytes at a time, so the common case of JSON text costs little
/// more than a read of the bytes.
enum UTF8Validation {
    /// Whether `bytes` are well-formed UTF-8.
    static func isValid(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let count = bytes.count
        guard let base = bytes.baseAddress, count > 0 else { return true }
        var index = 0
        while index < count {
            // Fast path: eight ASCII bytes at a time.
            while index + 8 <= count {
                let word = base.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                if word & 0x8080_8080_8080_8080 != 0 { break }
                index += 8
            }
            guard index < count else { return true }
            let lead = base.load(fromByteOffset: index, as: UInt8.self)
            if lead < 0x80 {
                index += 1
                continue
            }
            let length: Int
            var lowerBound: UInt8 = 0x80
            var upperBound: UInt8 = 0xBF
            switch lead {
            case 0xC2 ... 0xDF:
                length = 2
            case 0xE0:
                length = 3
                lowerBound = 0xA0
            case 0xE1 ... 0xEC, 0xEE ... 0xEF:
                length = 3
            case 0xED:
                length = 3
                upperBound = 0x9F
            case 0xF0:
                length = 4
                lowerBound = 0x90
            case 0xF1 ... 0xF3:
                length = 4
            case 0xF4:
                length = 4
                upperBound = 0x8F
            default:
                return false
            }
            guard index + length <= count else { return false }
            let second = base.load(fromByteOffset: index + 1, as: UInt8.self)
            guard second >= lowerBound, second <= upperBound else { return false }
            var offset = 2
            while offset < length {
                let next = base.load(fromByteOffset: index + offset, as: UInt8.self)
                guard next & 0xC0 == 0x80 else { return false }
                offset += 1
            }
            index += length
        }
        return true
    }

    /// Whether `bytes` are well-formed UTF-8.
    static func isValid(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { isValid($0) }
    }
}
