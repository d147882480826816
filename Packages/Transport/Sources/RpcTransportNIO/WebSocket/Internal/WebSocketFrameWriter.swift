import NIOCore

/// Serialises outbound WebSocket frames (RFC 6455, section 5.2) into one buffer each: header,
/// masking key and (masked) payload together, so that every frame is a single socket write.
enum WebSocketFrameWriter {
    /// Opcodes this endpoint sends.
    enum Opcode: UInt8 {
        case continuation = 0x0
        case text = 0x1
        case binary = 0x2
        case close = 0x8
        case ping = 0x9
        case pong = 0xA
    }

    /// The longest frame header: two bytes, an eight-byte length and a four-byte masking key.
    static let maximumHeaderSize = 14

    /// A fresh masking key (see ``MaskingKeyPool``).
    static func randomMaskingKey() -> (UInt8, UInt8, UInt8, UInt8) {
        let value = MaskingKeyPool.shared.next()
        return (UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8),
                UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 24))
    }

    /// One frame carrying `payload`.
    ///
    /// - Parameters:
    ///   - masked: Whether to mask the payload with a fresh random key (a client's frames are).
    static func frame(
        opcode: Opcode,
        fin: Bool,
        rsv1: Bool,
        payload: UnsafeRawBufferPointer,
        masked: Bool,
        allocator: ByteBufferAllocator
    ) -> ByteBuffer {
        var buffer = allocator.buffer(capacity: maximumHeaderSize + payload.count)
        write(opcode: opcode, fin: fin, rsv1: rsv1, payload: payload, masked: masked, into: &buffer)
        return buffer
    }

    /// Appends one frame carrying `payload` to `buffer`, which may already hold other frames.
    static func write(
        opcode: Opcode,
        fin: Bool,
        rsv1: Bool,
        payload: UnsafeRawBufferPointer,
        masked: Bool,
        into buffer: inout ByteBuffer
    ) {
        let count = payload.count
        buffer.reserveCapacity(minimumWritableBytes: maximumHeaderSize + count)
        let first: UInt8 = (fin ? 0x80 : 0) | (rsv1 ? 0x40 : 0) | opcode.rawValue
        let maskBit: UInt8 = masked ? 0x80 : 0
        buffer.writeInteger(first)
        if count < 126 {
            buffer.writeInteger(UInt8(count) | maskBit)
        } else if count <= Int(UInt16.max) {
            buffer.writeInteger(126 | maskBit)
            buffer.writeInteger(UInt16(count))
        } else {
            buffer.writeInteger(127 | maskBit)
            buffer.writeInteger(UInt64(count))
        }
        if masked {
            let key = randomMaskingKey()
            buffer.writeMultipleIntegers(key.0, key.1, key.2, key.3)
            buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { destination in
                WebSocketMasking.copy(payload, to: destination, key: key)
                return count
            }
        } else {
            buffer.writeBytes(payload)
        }
    }

    /// One frame carrying the bytes of an array.
    static func frame(
        opcode: Opcode,
        fin: Bool = true,
        rsv1: Bool = false,
        bytes payload: [UInt8],
        masked: Bool,
        allocator: ByteBufferAllocator
    ) -> ByteBuffer {
        payload.withUnsafeBytes { raw in
            frame(opcode: opcode, fin: fin, rsv1: rsv1, payload: raw, masked: masked, allocator: allocator)
        }
    }
}
