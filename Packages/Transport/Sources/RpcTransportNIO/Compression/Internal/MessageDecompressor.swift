import CRpcZlib
import NIOCore
import RpcTransport

/// Decompresses WebSocket message payloads for permessage-deflate (RFC 7692, section 7.2.2).
///
/// The payload of a message received with RSV1 set is inflated as raw DEFLATE, followed by the
/// four bytes `00 00 ff ff` that the sender removed. The output of one message may never exceed
/// ``maximumMessageSize``: inflation stops as soon as one byte more would be produced and the
/// call throws ``TransportError`` with code `messageTooLarge`, so a small message that expands
/// enormously (a decompression bomb) costs no more memory than a legitimate message of the
/// maximum size. Output space is requested as output is produced, never ahead of it.
///
/// A message may be decompressed whole, or fragment by fragment as frames arrive with
/// ``decompressFragment(_:isFinal:into:)``; the size limit applies to the whole message.
///
/// A block with BFINAL set ends the message's DEFLATE data (RFC 7692, section 7.2.3.4): anything
/// after it in the same message is ignored, and the next message starts a fresh stream.
///
/// After a thrown error the history is lost, so the connection must be failed (close code 1002
/// for `protocolViolation`, 1009 for `messageTooLarge`); the output buffer then holds the part
/// decompressed so far, at most ``maximumMessageSize`` bytes, which must be discarded.
///
/// Not thread-safe: one instance belongs to one connection and is used from one place at a time.
final class MessageDecompressor {
    /// The window size agreed for this direction, in bits (`8...15`).
    let windowBits: Int
    /// Whether the stream is reset after each message because the peer does not take context over.
    let noContextTakeover: Bool
    /// The largest decompressed message accepted, in bytes.
    let maximumMessageSize: Int

    /// The zlib stream, at a stable address because zlib keeps a pointer back to it.
    private let stream: UnsafeMutablePointer<z_stream>
    /// Bytes produced so far for the message being decompressed.
    private var producedInMessage = 0
    /// Set when the message being decompressed contained a final block: the rest is ignored.
    private var reachedStreamEnd = false

    /// The empty stored block that senders strip from the end of every message.
    private static let flushMarker = ByteBuffer(bytes: [0x00, 0x00, 0xFF, 0xFF])
    /// The largest input handed to zlib in one call, well below `UInt32.max`.
    private static let maximumInputChunk = 1 << 30
    /// The smallest amount of output space requested from the buffer at a time.
    private static let minimumOutputChunk = 4096

    /// Creates a decompressor.
    ///
    /// - Parameters:
    ///   - windowBits: The window agreed for this direction, `8...15` (clamped).
    ///   - noContextTakeover: Whether the peer resets its compressor after each message.
    ///   - maximumMessageSize: The largest decompressed message accepted, in bytes.
    /// - Throws: ``TransportError`` with code `ioError` when zlib cannot be initialised.
    init(windowBits: Int, noContextTakeover: Bool, maximumMessageSize: Int) throws(TransportError) {
        let agreedBits = DeflateWindowBits.clamped(windowBits)
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let status = c_rpc_inflateInit2(stream, -Int32(agreedBits))
        guard status == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            throw TransportError(
                code: .ioError,
                message: "permessage-deflate: cannot initialise the decompressor (zlib status \(status))"
            )
        }
        self.stream = stream
        self.windowBits = agreedBits
        self.noContextTakeover = noContextTakeover
        self.maximumMessageSize = max(maximumMessageSize, 0)
    }

    deinit {
        inflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Decompresses the whole payload of one message and appends the result to `output`.
    ///
    /// - Throws: ``TransportError`` with code `messageTooLarge` when the message would exceed
    ///   ``maximumMessageSize``, `protocolViolation` when the payload is not valid DEFLATE data.
    func decompress(_ payload: ByteBuffer, into output: inout ByteBuffer) throws(TransportError) {
        try decompressFragment(payload, isFinal: true, into: &output)
    }

    /// Decompresses the whole payload of one message into a new buffer from `allocator`.
    func decompress(_ payload: ByteBuffer, allocator: ByteBufferAllocator) throws(TransportError) -> ByteBuffer {
        var output = allocator.buffer(capacity: 0)
        try decompress(payload, into: &output)
        return output
    }

    /// Decompresses the payload of one frame of a compressed message and appends the result.
    ///
    /// Call it for every frame of the message in order, with `isFinal` set on the frame with FIN.
    /// The size limit counts everything appended since the message's first frame.
    ///
    /// - Throws: As ``decompress(_:into:)``.
    func decompressFragment(_ fragment: ByteBuffer, isFinal: Bool, into output: inout ByteBuffer) throws(TransportError) {
        do throws(TransportError) {
            try fragment.withUnsafeReadableBytes { (input) throws(TransportError) in
                try inflate(input, into: &output)
            }
            if isFinal {
                try Self.flushMarker.withUnsafeReadableBytes { (marker) throws(TransportError) in
                    try inflate(marker, into: &output)
                }
                finishMessage()
            }
        } catch {
            abandonMessage()
            throw error
        }
    }

    /// Prepares for the next message.
    private func finishMessage() {
        if noContextTakeover || reachedStreamEnd {
            inflateReset(stream)
        }
        producedInMessage = 0
        reachedStreamEnd = false
    }

    /// Drops the state of a message that failed.
    private func abandonMessage() {
        inflateReset(stream)
        stream.pointee.next_in = nil
        stream.pointee.avail_in = 0
        producedInMessage = 0
        reachedStreamEnd = false
    }

    /// Runs `input` through the stream, in chunks zlib's 32-bit counters can hold.
    private func inflate(_ input: UnsafeRawBufferPointer, into output: inout ByteBuffer) throws(TransportError) {
        guard let base = input.baseAddress, !reachedStreamEnd else { return }
        var offset = 0
        while offset < input.count, !reachedStreamEnd {
            let chunk = min(input.count - offset, Self.maximumInputChunk)
            stream.pointee.next_in = UnsafeMutablePointer(
                mutating: base.advanced(by: offset).assumingMemoryBound(to: Bytef.self)
            )
            stream.pointee.avail_in = uInt(chunk)
            defer {
                stream.pointee.next_in = nil
                stream.pointee.avail_in = 0
            }
            try drain(into: &output)
            offset += chunk
        }
    }

    /// Calls `inflate` until the pending input is consumed, the stream ends or the limit is hit.
    private func drain(into output: inout ByteBuffer) throws(TransportError) {
        while true {
            let allowance = maximumMessageSize - producedInMessage
            let status: Int32
            let outputFull: Bool
            if allowance > 0 {
                let wanted = min(
                    allowance,
                    max(Self.minimumOutputChunk, output.writerIndex, output.writableBytes),
                    Int(UInt32.max)
                )
                var result = (status: Z_OK, written: 0, full: false)
                output.writeWithUnsafeMutableBytes(minimumWritableBytes: wanted) { buffer in
                    let room = min(buffer.count, wanted)
                    stream.pointee.next_out = buffer.baseAddress?.assumingMemoryBound(to: Bytef.self)
                    stream.pointee.avail_out = uInt(room)
                    result.status = CRpcZlib.inflate(stream, Z_SYNC_FLUSH)
                    result.written = room - Int(stream.pointee.avail_out)
                    result.full = stream.pointee.avail_out == 0
                    stream.pointee.next_out = nil
                    stream.pointee.avail_out = 0
                    return result.written
                }
                status = result.status
                outputFull = result.full
                producedInMessage += result.written
            } else {
                // The limit is reached: offer a single spare byte, so that any further output
                // reveals the message is too large without growing the output at all.
                var spare: UInt8 = 0
                var produced = 0
                status = withUnsafeMutablePointer(to: &spare) { pointer in
                    stream.pointee.next_out = pointer
                    stream.pointee.avail_out = 1
                    let status = CRpcZlib.inflate(stream, Z_SYNC_FLUSH)
                    produced = 1 - Int(stream.pointee.avail_out)
                    stream.pointee.next_out = nil
                    stream.pointee.avail_out = 0
                    return status
                }
                guard produced == 0 else { throw tooLarge() }
                outputFull = false
            }
            switch status {
            case Z_STREAM_END:
                reachedStreamEnd = true
                return
            case Z_OK, Z_BUF_ERROR:
                if stream.pointee.avail_in == 0, !outputFull { return }
                if status == Z_BUF_ERROR, !outputFull {
                    // No progress although input and output space remain: cannot happen with
                    // a healthy stream; treat the data as unusable rather than loop.
                    throw corrupt(status)
                }
            case Z_MEM_ERROR:
                throw TransportError(
                    code: .ioError,
                    message: "permessage-deflate: out of memory while decompressing"
                )
            default:
                throw corrupt(status)
            }
        }
    }

    /// The error for a message whose decompressed size passes ``maximumMessageSize``.
    private func tooLarge() -> TransportError {
        TransportError(
            code: .messageTooLarge,
            message: "permessage-deflate: the decompressed message exceeds \(maximumMessageSize) bytes"
        )
    }

    /// The error for payload bytes that are not valid DEFLATE data.
    private func corrupt(_ status: Int32) -> TransportError {
        var reason = "zlib status \(status)"
        if let text = stream.pointee.msg {
            reason = String(cString: text)
        }
        return TransportError(
            code: .protocolViolation,
            message: "permessage-deflate: the compressed message is corrupt (\(reason))"
        )
    }
}
