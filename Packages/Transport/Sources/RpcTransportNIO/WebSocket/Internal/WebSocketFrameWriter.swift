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
    ///
    /// The header, key and payload are written through one reservation of the buffer.
    static func write(
        opcode: Opcode,
        fin: Bool,
        rsv1: Bool,
        payload: UnsafeRawBufferPointer,
        masked: Bool,
        into buffer: inout ByteBuffer
    ) {
        let count = payload.count
        let lengthSize = count < 126 ? 0 : (count <= Int(UInt16.max) ? 2 : 8)
        let headerSize = 2 + lengthSize + (masked ? 4 : 0)
        let frameSize = headerSize + count
        let first: UInt8 = (fin ? 0x80 : 0) | (rsv1 ? 0x40 : 0) | opcode.rawValue
        let maskBit: UInt8 = masked ? 0x80 : 0
        let key = masked ? randomMaskingKey() : nil
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: frameSize) { destination in
            destination[0] = first
            switch lengthSize {
            case 0:
                destination[1] = UInt8(count) | maskBit
            case 2:
                destination[1] = 126 | maskBit
                destination.storeBytes(of: UInt16(count).bigEndian, toByteOffset: 2, as: UInt16.self)
            default:
                destination[1] = 127 | maskBit
                destination.storeBytes(of: UInt64(count).bigEndian, toByteOffset: 2, as: UInt64.self)
            }
            let body = UnsafeMutableRawBufferPointer(rebasing: destination[headerSize ..< frameSize])
            if let key {
                let keyOffset = 2 + lengthSize
                destination[keyOffset] = key.0
                destination[keyOffset + 1] = key.1
                destination[keyOffset + 2] = key.2
                destination[keyOffset + 3] = key.3
                WebSocketMasking.copy(payload, to: body, key: key)
            } else {
                body.copyMemory(from: payload)
            }
            return frameSize
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
