import NIOCore
import RpcTransport

/// The permessage-deflate state of one WebSocket connection: a compressor for the messages this
/// endpoint sends and a decompressor for the messages it receives (RFC 7692).
///
/// Created once the handshake agreed on the extension, from
/// ``PerMessageDeflateNegotiation/clientAgreement(responseHeaderValues:offer:)`` or
/// ``PerMessageDeflateNegotiation/serverAgreement(offerHeaderValues:configuration:)``.
///
/// How the WebSocket frame layer uses it:
/// - Sending: when ``shouldCompress(payloadSize:)`` is true for a text or binary message,
///   ``compress(_:into:)`` the whole payload and send the result with RSV1 set on the first frame
///   only (continuation frames keep RSV1 clear). Smaller messages go out unchanged with RSV1 clear.
///   Control frames are never compressed.
/// - Receiving: RSV1 on the first frame of a text or binary message means the message is
///   compressed: reassemble its payload and ``decompress(_:into:)`` it (or feed each frame to
///   ``decompressFragment(_:isFinal:into:)``), then check UTF-8 for text on the decompressed
///   bytes. The size limit applies to the decompressed message.
/// - RSV1 on a continuation or control frame, or on any frame when the extension was not agreed,
///   is a protocol violation: fail the connection with close code 1002.
/// - Errors: `protocolViolation` (corrupt data) closes with 1002, `messageTooLarge` with 1009.
///   After any error the compression history is unusable, so the connection must be failed.
///
/// Not thread-safe: it belongs to one connection and is used from one place at a time.
final class PerMessageDeflateCodec {
    /// The agreed parameters, from this endpoint's point of view.
    let agreed: AgreedDeflateParameters
    /// Messages smaller than this many bytes are sent uncompressed.
    let minimumSizeToCompress: Int

    /// Compresses outgoing messages.
    private let compressor: MessageCompressor
    /// Decompresses incoming messages.
    private let decompressor: MessageDecompressor

    /// Creates the codec of one connection.
    ///
    /// - Parameters:
    ///   - agreed: The parameters the handshake settled on.
    ///   - configuration: This endpoint's configuration, for the level and the size threshold.
    ///   - maximumMessageSize: The WebSocket maximum message size, which bounds decompressed messages.
    /// - Throws: ``TransportError`` with code `ioError` when zlib cannot be initialised.
    init(
        agreed: AgreedDeflateParameters,
        configuration: PerMessageDeflateConfiguration,
        maximumMessageSize: Int
    ) throws(TransportError) {
        self.agreed = agreed
        self.minimumSizeToCompress = configuration.effectiveMinimumSizeToCompress
        self.compressor = try MessageCompressor(
            windowBits: agreed.sendWindowBits,
            noContextTakeover: agreed.sendNoContextTakeover,
            level: configuration.effectiveCompressionLevel
        )
        self.decompressor = try MessageDecompressor(
            windowBits: agreed.receiveWindowBits,
            noContextTakeover: agreed.receiveNoContextTakeover,
            maximumMessageSize: maximumMessageSize
        )
    }

    /// Whether a message payload of `payloadSize` bytes is sent compressed, with RSV1 set.
    func shouldCompress(payloadSize: Int) -> Bool {
        payloadSize >= minimumSizeToCompress
    }

    /// Compresses a whole outgoing message payload and appends the result to `output`.
    func compress(_ message: ByteBuffer, into output: inout ByteBuffer) throws(TransportError) {
        try compressor.compress(message, into: &output)
    }

    /// Compresses a whole outgoing message payload into a new buffer.
    func compress(_ message: ByteBuffer, allocator: ByteBufferAllocator) throws(TransportError) -> ByteBuffer {
        try compressor.compress(message, allocator: allocator)
    }

    /// Decompresses the reassembled payload of an incoming message received with RSV1 set.
    func decompress(_ payload: ByteBuffer, into output: inout ByteBuffer) throws(TransportError) {
        try decompressor.decompress(payload, into: &output)
    }

    /// Decompresses the reassembled payload of an incoming message into a new buffer.
    func decompress(_ payload: ByteBuffer, allocator: ByteBufferAllocator) throws(TransportError) -> ByteBuffer {
        try decompressor.decompress(payload, allocator: allocator)
    }

    /// Decompresses one frame of an incoming compressed message, in order; `isFinal` on the last.
    func decompressFragment(_ fragment: ByteBuffer, isFinal: Bool, into output: inout ByteBuffer) throws(TransportError) {
        try decompressor.decompressFragment(fragment, isFinal: isFinal, into: &output)
    }
}
