/// Strict checks of multi-byte UTF-8 sequences (RFC 3629).
///
/// Well-formed sequences have a lead byte C2–F4 followed by the right number of continuation
/// bytes 80–BF, with the second byte narrowed after E0 (no overlongs), ED (no surrogates),
/// F0 (no overlongs) and F4 (nothing above U+10FFFF).
enum UTF8Sequence {
    /// The length of the well-formed sequence whose lead byte (0x80 or above) is at
    /// `offset`, or 0 when the bytes there are not well-formed.
    @inline(__always)
    static func validLength(at offset: Int, base: UnsafePointer<UInt8>, end: Int) -> Int {
        let lead = base[offset]
        let remaining = end &- offset
        if lead < 0xE0 {
            guard lead >= 0xC2, remaining >= 2, isContinuation(base[offset &+ 1]) else { return 0 }
            return 2
        }
        if lead < 0xF0 {
            guard remaining >= 3 else { return 0 }
            let second = base[offset &+ 1]
            let lower: UInt8 = lead == 0xE0 ? 0xA0 : 0x80
            let upper: UInt8 = lead == 0xED ? 0x9F : 0xBF
            guard second >= lower, second <= upper, isContinuation(base[offset &+ 2]) else { return 0 }
            return 3
        }
        guard lead <= 0xF4, remaining >= 4 else { return 0 }
        let second = base[offset &+ 1]
        let lower: UInt8 = lead == 0xF0 ? 0x90 : 0x80
        let upper: UInt8 = lead == 0xF4 ? 0x8F : 0xBF
        guard second >= lower, second <= upper,
            isContinuation(base[offset &+ 2]), isContinuation(base[offset &+ 3])
        else { return 0 }
        return 4
    }

    /// The length of the well-formed sequence at the start of `word` (the next four bytes,
    /// first byte lowest, first byte 0x80 or above), or 0 when it is not well-formed.
    ///
    /// Matches the bit pattern of a two-, three- or four-byte sequence, then checks the top
    /// bits of the encoded scalar: not overlong, not a surrogate, not above U+10FFFF.
    @inline(__always)
    static func validLength(word: UInt32) -> Int {
        if word & 0xC0E0 == 0x80C0 {
            // 110xxxxx 10xxxxxx: scalar bits 10–7 must not all be zero.
            return word & 0x1E != 0 ? 2 : 0
        }
        if word & 0xC0_C0F0 == 0x80_80E0 {
            // 1110xxxx 10xxxxxx 10xxxxxx: scalar bits 15–11 must be neither 00000 (overlong)
            // nor 11011 (a surrogate).
            let top = (word & 0x0F) &<< 1 | (word &>> 13) & 1
            return top != 0 && top != 0x1B ? 3 : 0
        }
        if word & 0xC0C0_C0F8 == 0x8080_80F0 {
            // 11110xxx 10xxxxxx 10xxxxxx 10xxxxxx: scalar bits 20–16 must be 1 through 16.
            let top = (word & 0x07) &<< 2 | (word &>> 12) & 3
            return top != 0 && top <= 0x10 ? 4 : 0
        }
        return 0
    }

    /// Whether the `count` bytes at `bytes` are all ASCII, or nil when they are not
    /// well-formed UTF-8. Reads nothing outside those bytes.
    ///
    /// ASCII goes eight bytes per step; each multi-byte sequence is checked with one word-sized
    /// load while four bytes remain.
    static func validate(_ bytes: UnsafePointer<UInt8>, count: Int) -> Bool? {
        let raw = UnsafeRawPointer(bytes)
        let highBits: UInt64 = 0x8080_8080_8080_8080
        var offset = 0
        var isASCII = true
        while offset < count {
            if count &- offset >= 8 {
                let nonASCII = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) & highBits
                if nonASCII == 0 {
                    offset &+= 8
                    continue
                }
                offset &+= nonASCII.trailingZeroBitCount &>> 3
            } else if bytes[offset] < 0x80 {
                offset &+= 1
                continue
            }
            // A run of multi-byte sequences starts at `offset`; it is checked sequence after
            // sequence without going back to the word-at-a-time loop, which would stop at once.
            isASCII = false
            repeat {
                let length = count &- offset >= 4
                    ? validLength(word: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
                    : validLength(at: offset, base: bytes, end: count)
                guard length != 0 else { return nil }
                offset &+= length
            } while offset < count && bytes[offset] >= 0x80
        }
        return isASCII
    }

    @inline(__always)
    static func isContinuation(_ byte: UInt8) -> Bool {
        byte & 0xC0 == 0x80
    }

    /// Why the sequence starting at `offset` is not well-formed, in words.
    static func diagnosis(at offset: Int, in input: UnsafeBufferPointer<UInt8>) -> String {
        let lead = input[offset]
        switch lead {
        case 0x80...0xBF:
            return "invalid UTF-8 byte \(hex(lead)) (a continuation byte without a lead byte)"
        case 0xC0, 0xC1:
            return "invalid UTF-8 byte \(hex(lead)) (always an overlong encoding)"
        case 0xF5...0xFF:
            return "invalid UTF-8 byte \(hex(lead)) (never used in UTF-8)"
        default:
            break
        }
        let length = lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
        for step in 1..<length {
            guard offset + step < input.count else {
                return "truncated UTF-8 sequence starting with byte \(hex(lead)) at end of input"
            }
            let byte = input[offset + step]
            guard isContinuation(byte) else {
                return "invalid UTF-8 byte \(hex(byte)) after \(hex(lead)) (expected a continuation byte)"
            }
            guard step == 1 else { continue }
            switch (lead, byte) {
            case (0xE0, ..<0xA0), (0xF0, ..<0x90):
                return "overlong UTF-8 encoding \(hex(lead)) \(hex(byte))"
            case (0xED, 0xA0...):
                return "UTF-8 encoded surrogate \(hex(lead)) \(hex(byte))"
            case (0xF4, 0x90...):
                return "UTF-8 sequence \(hex(lead)) \(hex(byte)) encodes a value above U+10FFFF"
            default:
                continue
            }
        }
        return "invalid UTF-8 sequence starting with byte \(hex(lead))"
    }

    /// `0xAB`.
    static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return byte < 0x10 ? "0x0" + digits : "0x" + digits
    }
}
