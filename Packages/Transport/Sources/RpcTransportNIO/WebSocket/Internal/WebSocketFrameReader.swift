import NIOCore
import RpcTransport

/// Reads WebSocket frames (RFC 6455, section 5.2) out of the bytes a connection receives.
///
/// The connection handler calls ``next(in:)`` on each read's buffer until it returns `nil`.
/// A frame's payload is a slice of that buffer, not a copy. Bytes of a frame that is not
/// complete yet are kept by ``keepRemainder(of:allocator:)`` and put in front of the next read.
///
/// Header checks that need no connection state are made here, as soon as the header is readable
/// and before any payload is held: the frame-size limit, the 125-byte limit of control frames
/// and their `FIN` bit, and the reserved top bit of a 64-bit length.
struct WebSocketFrameReader {
    /// One frame: its header fields and its payload, still masked if it was.
    struct Frame {
        /// The `FIN` bit: the last frame of a message.
        var fin: Bool
        /// The `RSV1` bit (set on the first frame of a compressed message).
        var rsv1: Bool
        /// Whether `RSV2` or `RSV3` is set; no extension this endpoint speaks uses them.
        var otherReservedBits: Bool
        /// The four-bit opcode, as sent.
        var opcode: UInt8
        /// The masking key, in wire order; `nil` for an unmasked frame.
        var maskingKey: (UInt8, UInt8, UInt8, UInt8)?
        /// The payload, masked with ``maskingKey`` if there is one.
        var payload: ByteBuffer

        /// Whether the opcode is a control frame's (close, ping, pong or a reserved one).
        var isControl: Bool { opcode & 0x8 != 0 }
    }

    /// The largest payload of a control frame.
    static let maximumControlPayload = 125

    /// The largest payload accepted, in bytes.
    let maxFrameSize: Int
    /// The start of a frame that had not fully arrived, with room for the rest.
    private var carried: ByteBuffer?
    /// Whether the buffer being read is ``carried`` with the latest read appended (see
    /// ``prepend(to:)``), rather than the channel's own read buffer.
    private var readingCarried = false

    /// - Parameter maxFrameSize: The largest payload accepted; larger frames fail with
    ///   `messageTooLarge` as soon as their header is read.
    init(maxFrameSize: Int) {
        self.maxFrameSize = maxFrameSize
    }

    /// Puts the bytes kept from earlier reads in front of `buffer`.
    mutating func prepend(to buffer: inout ByteBuffer) {
        guard var carried else {
            readingCarried = false
            return
        }
        self.carried = nil
        carried.writeBuffer(&buffer)
        buffer = carried
        readingCarried = true
    }

    /// The most room reserved ahead for a frame that has not arrived yet; a larger frame's
    /// buffer grows as its bytes come, so a header alone cannot make the reader reserve up to
    /// the frame-size limit.
    static let maximumReservation = 1 << 20

    /// Keeps the unread bytes of `buffer` (the start of a frame) for the next read, in a buffer of
    /// this reader's own with room for the whole frame when its header is known (up to
    /// ``maximumReservation``).
    ///
    /// The channel's read buffer is copied from, not kept, so that the channel can reuse it. A
    /// buffer that is already the reader's own (a frame arriving over several reads) is kept as
    /// it is, without what was read from it: copying it again on every read would make a large
    /// frame cost time in the square of its number of reads.
    mutating func keepRemainder(of buffer: consuming ByteBuffer, allocator: ByteBufferAllocator) {
        let remaining = buffer.readableBytes
        guard remaining > 0 else { return }
        if readingCarried {
            buffer.discardReadBytes()
            carried = buffer
            return
        }
        let needed = min(frameSize(in: buffer) ?? remaining, Self.maximumReservation)
        var kept = allocator.buffer(capacity: max(needed, remaining))
        kept.writeImmutableBuffer(buffer)
        carried = kept
    }

    /// Drops any kept bytes.
    mutating func reset() {
        carried = nil
        readingCarried = false
    }

    /// Reads the next whole frame from `buffer`, moving its reader index past it; `nil` (with
    /// the index unchanged) when the frame has not fully arrived.
    ///
    /// - Throws: `messageTooLarge` (close code 1009) for a frame above ``maxFrameSize``;
    ///   `protocolViolation` (1002) for a control frame that is fragmented or longer than 125
    ///   bytes, or a 64-bit length with its top bit set.
    mutating func next(in buffer: inout ByteBuffer) throws(TransportError) -> Frame? {
        guard let header = try header(in: buffer) else { return nil }
        guard buffer.readableBytes - header.size >= header.payloadLength else { return nil }
        buffer.moveReaderIndex(forwardBy: header.size)
        guard let payload = buffer.readSlice(length: header.payloadLength) else { return nil }
        return Frame(
            fin: header.first & 0x80 != 0,
            rsv1: header.first & 0x40 != 0,
            otherReservedBits: header.first & 0x30 != 0,
            opcode: header.first & 0x0F,
            maskingKey: header.maskingKey,
            payload: payload
        )
    }

    /// The fixed part of a frame, read without moving the reader index.
    private struct Header {
        var first: UInt8
        var size: Int
        var payloadLength: Int
        var maskingKey: (UInt8, UInt8, UInt8, UInt8)?
    }

    /// The header at the start of `buffer`; `nil` until all of it has arrived.
    private func header(in buffer: ByteBuffer) throws(TransportError) -> Header? {
        guard let first = buffer.getInteger(at: buffer.readerIndex, as: UInt8.self),
            let second = buffer.getInteger(at: buffer.readerIndex + 1, as: UInt8.self)
        else { return nil }
        let masked = second & 0x80 != 0
        var size = 2
        var length = UInt64(second & 0x7F)
        switch length {
        case 126:
            guard let extended = buffer.getInteger(at: buffer.readerIndex + 2, as: UInt16.self) else { return nil }
            length = UInt64(extended)
            size = 4
        case 127:
            guard let extended = buffer.getInteger(at: buffer.readerIndex + 2, as: UInt64.self) else { return nil }
            guard extended >> 63 == 0 else {
                throw Self.violation("frame length with its most significant bit set")
            }
            length = extended
            size = 10
        default:
            break
        }
        if first & 0x8 != 0 {
            guard first & 0x80 != 0 else { throw Self.violation("fragmented control frame") }
            guard length <= UInt64(Self.maximumControlPayload) else {
                throw Self.violation("control frame longer than \(Self.maximumControlPayload) bytes")
            }
        }
        guard length <= UInt64(clamping: maxFrameSize), let payloadLength = Int(exactly: length) else {
            throw TransportError(
                code: .messageTooLarge,
                message: "frame longer than the limit of \(maxFrameSize) bytes",
                closeCode: .messageTooBig
            )
        }
        var maskingKey: (UInt8, UInt8, UInt8, UInt8)?
        if masked {
            guard let key = buffer.getInteger(at: buffer.readerIndex + size, as: UInt32.self) else { return nil }
            maskingKey = (
                UInt8(truncatingIfNeeded: key >> 24), UInt8(truncatingIfNeeded: key >> 16),
                UInt8(truncatingIfNeeded: key >> 8), UInt8(truncatingIfNeeded: key)
            )
            size += 4
        }
        return Header(first: first, size: size, payloadLength: payloadLength, maskingKey: maskingKey)
    }

    /// The whole size (header and payload) of the frame starting `buffer`, once its header is
    /// readable and valid; `Int.max` when it does not fit (a limit near `Int.max` lets a
    /// header announce up to 2^63 - 1 bytes).
    private func frameSize(in buffer: ByteBuffer) -> Int? {
        guard let header = try? header(in: buffer) else { return nil }
        return header.size.saturatingAdding(header.payloadLength)
    }

    private static func violation(_ message: String) -> TransportError {
        TransportError(code: .protocolViolation, message: message, closeCode: .protocolError)
    }
}
