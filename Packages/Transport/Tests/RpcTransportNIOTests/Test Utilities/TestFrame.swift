/// WebSocket frames as bytes, built and parsed by hand so that tests can produce frames no
/// well-behaved endpoint would send.
struct TestFrame: Equatable {
    var fin: Bool
    var reserved: UInt8
    var opcode: UInt8
    var payload: [UInt8]

    /// The code of a close frame.
    var closeCode: UInt16? {
        guard opcode == 0x8, payload.count >= 2 else { return nil }
        return UInt16(payload[0]) << 8 | UInt16(payload[1])
    }

    /// The bytes of a frame.
    ///
    /// - Parameters:
    ///   - reserved: RSV1–3 as the bits 0x40, 0x20 and 0x10.
    ///   - masked: Whether to mask the payload (clients must).
    ///   - declaredLength: A length to put in the header instead of the payload's own.
    static func encode(
        opcode: UInt8,
        payload: [UInt8] = [],
        fin: Bool = true,
        reserved: UInt8 = 0,
        masked: Bool = true,
        declaredLength: UInt64? = nil
    ) -> [UInt8] {
        var bytes: [UInt8] = [(fin ? 0x80 : 0) | reserved | opcode]
        let length = declaredLength ?? UInt64(payload.count)
        let maskBit: UInt8 = masked ? 0x80 : 0
        if length < 126 {
            bytes.append(UInt8(length) | maskBit)
        } else if length <= 0xFFFF {
            bytes.append(126 | maskBit)
            bytes.append(contentsOf: [UInt8(length >> 8), UInt8(length & 0xFF)])
        } else {
            bytes.append(127 | maskBit)
            for shift in stride(from: 56, through: 0, by: -8) {
                bytes.append(UInt8(truncatingIfNeeded: length >> UInt64(shift)))
            }
        }
        if masked {
            let key: [UInt8] = [0x12, 0x34, 0x56, 0x78]
            bytes.append(contentsOf: key)
            bytes.append(contentsOf: payload.enumerated().map { $0.element ^ key[$0.offset % 4] })
        } else {
            bytes.append(contentsOf: payload)
        }
        return bytes
    }

    /// A close frame's payload.
    static func closePayload(_ code: UInt16, _ reason: String = "") -> [UInt8] {
        [UInt8(code >> 8), UInt8(code & 0xFF)] + Array(reason.utf8)
    }

    /// The complete frames at the start of `bytes` (unmasking masked ones).
    static func parse(_ bytes: [UInt8]) -> [TestFrame] {
        var frames: [TestFrame] = []
        var index = 0
        while index + 2 <= bytes.count {
            let first = bytes[index]
            let second = bytes[index + 1]
            var length = UInt64(second & 0x7F)
            var cursor = index + 2
            if length == 126 {
                guard cursor + 2 <= bytes.count else { break }
                length = UInt64(bytes[cursor]) << 8 | UInt64(bytes[cursor + 1])
                cursor += 2
            } else if length == 127 {
                guard cursor + 8 <= bytes.count else { break }
                length = bytes[cursor ..< cursor + 8].reduce(0) { $0 << 8 | UInt64($1) }
                cursor += 8
            }
            var key: [UInt8]?
            if second & 0x80 != 0 {
                guard cursor + 4 <= bytes.count else { break }
                key = Array(bytes[cursor ..< cursor + 4])
                cursor += 4
            }
            guard length <= UInt64(bytes.count - cursor) else { break }
            var payload = Array(bytes[cursor ..< cursor + Int(length)])
            if let key {
                payload = payload.enumerated().map { $0.element ^ key[$0.offset % 4] }
            }
            frames.append(TestFrame(fin: first & 0x80 != 0, reserved: first & 0x70, opcode: first & 0x0F, payload: payload))
            index = cursor + Int(length)
        }
        return frames
    }
}
