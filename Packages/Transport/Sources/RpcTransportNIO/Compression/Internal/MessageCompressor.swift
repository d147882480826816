import CRpcZlib
import NIOCore
import RpcTransport

/// Compresses whole WebSocket message payloads for permessage-deflate (RFC 7692, section 7.2.1).
///
/// Each message is fed to one raw DEFLATE stream and flushed with `Z_SYNC_FLUSH`; the empty
/// stored block that the flush ends with (`00 00 ff ff`) is removed, as the receiver appends it
/// back. With context takeover the stream carries on across messages, so later messages may refer
/// to earlier ones; without it the stream is reset after every message.
///
/// Not thread-safe: one instance belongs to one connection and is used from one place at a time.
final class MessageCompressor {
    /// The window size agreed for this direction, in bits (`8...15`).
    let windowBits: Int
    /// Whether the stream is reset after each message.
    let noContextTakeover: Bool

    /// The zlib stream, at a stable address because zlib keeps a pointer back to it.
    private let stream: UnsafeMutablePointer<z_stream>
    /// Set when zlib reported an error mid-message: the stream must be reset before reuse.
    private var needsReset = false

    /// The largest input handed to zlib in one call, well below `UInt32.max`.
    private static let maximumInputChunk = 1 << 30
    /// The smallest amount of output space requested from the buffer at a time.
    private static let minimumOutputChunk = 1024

    /// Creates a compressor.
    ///
    /// - Parameters:
    ///   - windowBits: The window agreed for this direction, `8...15` (clamped). zlib cannot
    ///     compress raw DEFLATE with 8 bits, so 8 compresses with 9: zlib's matches never reach
    ///     further back than the window size minus 262 bytes, which keeps them within 256 bytes.
    ///   - noContextTakeover: Whether to forget the history after each message.
    ///   - level: The zlib compression level, `0...9` (clamped).
    /// - Throws: ``TransportError`` with code `ioError` when zlib cannot be initialised.
    init(windowBits: Int, noContextTakeover: Bool, level: Int) throws(TransportError) {
        let agreedBits = DeflateWindowBits.clamped(windowBits)
        let zlibBits = max(agreedBits, DeflateWindowBits.minimumForCompression)
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let status = c_rpc_deflateInit2(stream, Int32(min(max(level, 0), 9)), -Int32(zlibBits), 8)
        guard status == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            throw TransportError(
                code: .ioError,
                message: "permessage-deflate: cannot initialise the compressor (zlib status \(status))"
            )
        }
        self.stream = stream
        self.windowBits = agreedBits
        self.noContextTakeover = noContextTakeover
    }

    deinit {
        deflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Compresses one whole message payload and appends the result to `output`.
    ///
    /// The readable bytes of `message` are compressed; `message` itself is not modified. The
    /// appended bytes are the payload of a message sent with RSV1 set. `output` is grown as
    /// needed, so a caller that owns a buffer uniquely can `clear()` and reuse it.
    ///
    /// - Throws: ``TransportError`` with code `ioError` if zlib fails, which only happens when
    ///   memory runs out or the stream is broken.
    func compress(_ message: ByteBuffer, into output: inout ByteBuffer) throws(TransportError) {
        if needsReset {
            deflateReset(stream)
            needsReset = false
        }
        let start = output.writerIndex
        do throws(TransportError) {
            try message.withUnsafeReadableBytes { (input) throws(TransportError) in
                try deflate(input, into: &output)
            }
            try removeFlushMarker(from: &output, writtenFrom: start)
        } catch {
            needsReset = true
            output.moveWriterIndex(to: start)
            throw error
        }
        if noContextTakeover {
            deflateReset(stream)
        }
    }

    /// Compresses one whole message payload into a new buffer from `allocator`.
    func compress(_ message: ByteBuffer, allocator: ByteBufferAllocator) throws(TransportError) -> ByteBuffer {
        var output = allocator.buffer(capacity: Self.initialCapacity(forInputSize: message.readableBytes))
        try compress(message, into: &output)
        return output
    }

    /// A first guess at the compressed size: a quarter of the input, at least a small chunk.
    private static func initialCapacity(forInputSize size: Int) -> Int {
        max(minimumOutputChunk, size / 4)
    }

    /// Runs `input` through the stream and flushes it to a byte boundary.
    private func deflate(_ input: UnsafeRawBufferPointer, into output: inout ByteBuffer) throws(TransportError) {
        var offset = 0
        repeat {
            let chunk = min(input.count - offset, Self.maximumInputChunk)
            let isLast = offset + chunk == input.count
            if let base = input.baseAddress, chunk > 0 {
                stream.pointee.next_in = UnsafeMutablePointer(
                    mutating: base.advanced(by: offset).assumingMemoryBound(to: Bytef.self)
                )
            } else {
                stream.pointee.next_in = nil
            }
            stream.pointee.avail_in = uInt(chunk)
            try drain(flush: isLast ? Z_SYNC_FLUSH : Z_NO_FLUSH, into: &output)
            offset += chunk
        } while offset < input.count
        stream.pointee.next_in = nil
        stream.pointee.avail_in = 0
    }

    /// Calls `deflate` until the pending input is consumed and, for a flush, all output is out.
    private func drain(flush: Int32, into output: inout ByteBuffer) throws(TransportError) {
        var status = Z_OK
        var outputFull = false
        repeat {
            let wanted = max(Self.minimumOutputChunk, output.writableBytes, output.writerIndex / 2)
            let capped = min(wanted, Int(UInt32.max))
            output.writeWithUnsafeMutableBytes(minimumWritableBytes: capped) { buffer in
                let room = min(buffer.count, capped)
                stream.pointee.next_out = buffer.baseAddress?.assumingMemoryBound(to: Bytef.self)
                stream.pointee.avail_out = uInt(room)
                status = CRpcZlib.deflate(stream, flush)
                let written = room - Int(stream.pointee.avail_out)
                outputFull = stream.pointee.avail_out == 0
                stream.pointee.next_out = nil
                stream.pointee.avail_out = 0
                return written
            }
            guard status == Z_OK || status == Z_BUF_ERROR else {
                throw TransportError(
                    code: .ioError,
                    message: "permessage-deflate: compression failed (zlib status \(status))"
                )
            }
        } while stream.pointee.avail_in > 0 || (flush != Z_NO_FLUSH && outputFull)
    }

    /// Removes the `00 00 ff ff` that `Z_SYNC_FLUSH` ends with (RFC 7692, section 7.2.1).
    ///
    /// An empty message right after another flush makes zlib write nothing at all; it is then
    /// sent as the single byte `00`, which with the marker appended by the receiver is an empty
    /// stored block (RFC 7692, section 7.2.3.6) and leaves both histories unchanged.
    private func removeFlushMarker(from output: inout ByteBuffer, writtenFrom start: Int) throws(TransportError) {
        let end = output.writerIndex
        if end == start {
            output.writeInteger(UInt8(0))
            return
        }
        guard end - start >= 4, output.getInteger(at: end - 4, as: UInt32.self) == 0x0000_FFFF else {
            throw TransportError(
                code: .ioError,
                message: "permessage-deflate: the compressed message does not end with a flush marker"
            )
        }
        output.moveWriterIndex(to: end - 4)
    }
}
