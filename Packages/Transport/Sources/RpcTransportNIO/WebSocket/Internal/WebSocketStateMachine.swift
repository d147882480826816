import NIOCore
import RpcTransport

/// The WebSocket protocol of one connection after the opening handshake (RFC 6455, with
/// permessage-deflate from RFC 7692), as a value that holds no channel, clock or closure.
///
/// ``WebSocketConnectionHandler`` feeds it what happens (bytes read, a close or a ping asked
/// for, a timer fired, the channel gone) and performs the ``Action`` each input returns. It owns
/// everything the protocol decides: reading frames out of the bytes (``WebSocketFrameReader``),
/// the masking rules of each role, reserved bits and opcodes, reassembly of fragments with
/// control frames between them, the message size limit, inflation of compressed messages, UTF-8
/// checks of text, pongs for pings, the close handshake, the numbering of this side's pings,
/// and when the frame read timer runs. How the connection ended is kept here and handed over
/// in ``Action/finish(_:)``.
///
/// Bytes are read in a pull loop so that no input allocates a list of actions: after
/// ``beginRead(_:)``, ``nextReadAction(in:)`` returns one action per frame that asks for one,
/// and `nil` when the bytes hold no further whole frame or the connection stopped reading;
/// ``endRead(keeping:allocator:)`` then keeps the start of an incomplete frame.
struct WebSocketStateMachine {
    /// Where the connection is in its life.
    enum Phase: Equatable {
        /// Messages flow both ways.
        case open
        /// This side sent a close frame and waits for the peer's.
        case closeSent
        /// The peer's close frame arrived; the connection is being torn down.
        case closeReceived
        /// The connection failed; the close frame (if any) is on its way and the channel closes.
        case failed
        /// The channel is closed and the final event delivered.
        case finished
    }

    /// What the connection handler does in answer to an input.
    enum Action {
        /// Nothing to do.
        case nothing
        /// Hands a complete message to the transport's event handler.
        case deliver(TransportMessage)
        /// A pong arrived: answers the tasks waiting for one.
        case answerPings
        /// Sends a pong carrying `payload` (the ping's) and flushes it with the next flush.
        case sendPong([UInt8])
        /// Sends a ping carrying `payload` and flushes it with the next flush.
        case sendPing([UInt8])
        /// Moves the lifecycle to closing, writes and flushes a close frame with `code` and
        /// `reason` after the frames already written, closes the channel once the frame is
        /// written when `thenCloseChannel`, and starts the close timer.
        case sendClose(code: CloseCode, reason: String, thenCloseChannel: Bool)
        /// Moves the lifecycle to closing if it was not yet, and closes the channel.
        case closeChannel
        /// Starts the frame read timer, cancelling the one running if any; when it fires, call
        /// ``frameReadTimerFired()``.
        case startFrameTimer
        /// Cancels the frame read timer.
        case cancelFrameTimer
        /// The connection is over: cancels the timers, releases what the connection held and
        /// delivers the final event with how it ended. Boxed, so that the actions of every frame
        /// are not as large as this one.
        indirect case finish(TransportClosure)
    }

    /// The connection's limits and role.
    let settings: WebSocketConnectionSettings
    /// The permessage-deflate state, when the handshake agreed on it.
    private let codec: PerMessageDeflateCodec?
    /// Allocates the buffers of compressed messages.
    private let allocator: ByteBufferAllocator
    /// Splits the bytes read into frames.
    private var reader: WebSocketFrameReader
    /// Where the connection is.
    private(set) var phase: Phase = .open
    /// How the connection ended, once that is decided; delivered by ``Action/finish(_:)``.
    private var pendingClosure: TransportClosure?

    // The message being reassembled.
    /// The kind of the fragmented message under way; `nil` between messages.
    private var partialKind: TransportMessage.Kind?
    /// Whether the message under way is compressed (its first frame had RSV1 set).
    private var partialCompressed = false
    /// The unmasked payload of an uncompressed fragmented message so far.
    private var partialBytes: [UInt8] = []
    /// The bytes the message under way took on the wire, against the message limit.
    private var partialWireBytes = 0
    /// The inflated payload of a compressed message so far.
    private var inflated: ByteBuffer?
    /// The bytes of the last single-frame message, reused for the next (see
    /// ``deliverSingleFrame(_:kind:)``).
    private var inboundBytes: [UInt8] = []

    // Reading and timers.
    /// Whether a whole frame was read from the current read's bytes: the pending frame, if
    /// any, is then a new one and its timer starts again.
    private var completedFrameInRead = false
    /// Whether the frame read timer runs (the handler was told to start it and not to stop it).
    private(set) var frameTimerRunning = false
    /// Numbers the pings this side sends (their payload).
    private var pingCounter: UInt64 = 0

    /// A message buffer larger than this is not kept for reuse once its message is delivered.
    static let maxReusedInboundCapacity = 64 * 1024

    /// - Parameters:
    ///   - settings: The connection's role, limits and timeouts.
    ///   - codec: The permessage-deflate state, when the extension was agreed.
    ///   - allocator: Allocates the buffers compressed messages are inflated in.
    init(
        settings: WebSocketConnectionSettings,
        codec: PerMessageDeflateCodec?,
        allocator: ByteBufferAllocator = ByteBufferAllocator()
    ) {
        self.settings = settings
        self.codec = codec
        self.allocator = allocator
        self.reader = WebSocketFrameReader(maxFrameSize: settings.readerMaxFrameSize)
    }

    /// Whether messages may be sent: no close has started.
    var isOpen: Bool { phase == .open }

    /// Whether the connection is over and its final event delivered.
    var isFinished: Bool { phase == .finished }

    /// Whether the peer's frames are still read.
    private var isReading: Bool { phase == .open || phase == .closeSent }

    // MARK: Reading

    /// Starts reading the bytes of one read: the start of a frame kept from an earlier read is
    /// put in front of `buffer`.
    mutating func beginRead(_ buffer: inout ByteBuffer) {
        completedFrameInRead = false
        reader.prepend(to: &buffer)
    }

    /// Reads frames from `buffer` until one asks for an action, and returns it; `nil` once no
    /// whole frame is left or the peer's frames are no longer read. Then call
    /// ``endRead(keeping:allocator:)``.
    mutating func nextReadAction(in buffer: inout ByteBuffer) -> Action? {
        while isReading {
            let frame: WebSocketFrameReader.Frame?
            do {
                frame = try reader.next(in: &buffer)
            } catch {
                return fail(error)
            }
            guard let frame else { return nil }
            completedFrameInRead = true
            switch receive(frame) {
            case .nothing: continue
            case let action: return action
            }
        }
        return nil
    }

    /// Ends a read: keeps the unread bytes of `buffer` (the start of a frame) for the next read,
    /// and says what becomes of the frame read timer. The timer runs from the moment a frame
    /// begins to arrive, not from each read, so that a peer trickling a frame byte by byte
    /// cannot hold the connection longer than the timeout; it starts again when the pending
    /// frame is a new one. Once the peer's frames are no longer read the bytes are dropped.
    mutating func endRead(keeping buffer: consuming ByteBuffer, allocator: ByteBufferAllocator) -> Action {
        guard isReading else { return .nothing }
        let partial = buffer.readableBytes > 0
        reader.keepRemainder(of: consume buffer, allocator: allocator)
        guard partial else {
            guard frameTimerRunning else { return .nothing }
            frameTimerRunning = false
            return .cancelFrameTimer
        }
        guard completedFrameInRead || !frameTimerRunning else { return .nothing }
        frameTimerRunning = true
        return .startFrameTimer
    }

    /// The frame read timer fired: a frame began to arrive and did not finish in time.
    mutating func frameReadTimerFired() -> Action {
        frameTimerRunning = false
        let timeout = settings.frameReadTimeout
        return fail(
            TransportError(
                code: .readTimeout,
                message: "a frame began to arrive and did not finish within \(timeout.nanoseconds / 1_000_000) ms",
                closeCode: .policyViolation))
    }

    @inline(__always)
    private mutating func receive(_ frame: WebSocketFrameReader.Frame) -> Action {
        switch settings.role {
        case .server where frame.maskingKey == nil:
            return fail(Self.protocolViolation("client frame is not masked"))
        case .client where frame.maskingKey != nil:
            return fail(Self.protocolViolation("server frame is masked"))
        default:
            break
        }
        if frame.otherReservedBits {
            return fail(Self.protocolViolation("reserved bits set without a negotiated extension"))
        }
        if frame.isControl, frame.rsv1 {
            return fail(Self.protocolViolation("RSV1 set on a control frame"))
        }
        switch frame.opcode {
        case WebSocketFrameWriter.Opcode.text.rawValue:
            return receiveFirstFrame(frame, kind: .text)
        case WebSocketFrameWriter.Opcode.binary.rawValue:
            return receiveFirstFrame(frame, kind: .binary)
        case WebSocketFrameWriter.Opcode.continuation.rawValue:
            return receiveContinuation(frame)
        case WebSocketFrameWriter.Opcode.ping.rawValue:
            guard phase == .open else { return .nothing }
            return .sendPong(Self.unmaskedBytes(of: frame))
        case WebSocketFrameWriter.Opcode.pong.rawValue:
            return .answerPings
        case WebSocketFrameWriter.Opcode.close.rawValue:
            return receiveClose(frame)
        default:
            return fail(Self.protocolViolation("frame with the reserved opcode \(frame.opcode)"))
        }
    }

    // MARK: Inbound messages

    @inline(__always)
    private mutating func receiveFirstFrame(
        _ frame: WebSocketFrameReader.Frame,
        kind: TransportMessage.Kind
    ) -> Action {
        guard partialKind == nil else {
            return fail(Self.protocolViolation("new message started before the fragmented one ended"))
        }
        let length = frame.payload.readableBytes
        guard length <= settings.maxMessageSize else {
            return fail(tooLarge())
        }
        if frame.rsv1 {
            guard codec != nil else {
                return fail(Self.protocolViolation("RSV1 set without permessage-deflate"))
            }
            partialKind = kind
            partialCompressed = true
            partialWireBytes = length
            inflated = allocator.buffer(capacity: 0)
            return inflate(frame)
        }
        if frame.fin {
            return deliverSingleFrame(frame, kind: kind)
        }
        partialKind = kind
        partialCompressed = false
        partialWireBytes = length
        partialBytes = Self.unmaskedBytes(of: frame)
        return .nothing
    }

    private mutating func receiveContinuation(_ frame: WebSocketFrameReader.Frame) -> Action {
        guard let kind = partialKind else {
            return fail(Self.protocolViolation("continuation frame without a message to continue"))
        }
        guard !frame.rsv1 else {
            return fail(Self.protocolViolation("RSV1 set on a continuation frame"))
        }
        partialWireBytes = partialWireBytes.saturatingAdding(frame.payload.readableBytes)
        guard partialWireBytes < Int.max, partialWireBytes <= settings.maxMessageSize else {
            return fail(tooLarge())
        }
        if partialCompressed {
            return inflate(frame)
        }
        frame.payload.withUnsafeReadableBytes { raw in
            WebSocketMasking.append(raw, to: &partialBytes, key: frame.maskingKey)
        }
        guard frame.fin else { return .nothing }
        let bytes = partialBytes
        resetPartial()
        return deliver(kind: kind, bytes: bytes)
    }

    /// Feeds one frame of a compressed message to the decompressor; delivers on the last one.
    private mutating func inflate(_ frame: WebSocketFrameReader.Frame) -> Action {
        guard let codec, var output = inflated else { return .nothing }
        inflated = nil
        let payload = Self.unmaskedBuffer(of: frame, allocator: allocator)
        do {
            try codec.decompressFragment(payload, isFinal: frame.fin, into: &output)
        } catch {
            resetPartial()
            return fail(Self.withCloseCode(error))
        }
        guard frame.fin else {
            inflated = output
            return .nothing
        }
        let kind = partialKind ?? .binary
        resetPartial()
        let bytes = output.readBytes(length: output.readableBytes) ?? []
        return deliver(kind: kind, bytes: bytes)
    }

    private mutating func resetPartial() {
        partialKind = nil
        partialCompressed = false
        partialBytes = []
        partialWireBytes = 0
        inflated = nil
    }

    /// Delivers a message that came in one frame, unmasked into ``inboundBytes``.
    ///
    /// The buffer is reused for the next message when the event handler has let the message go
    /// (a session decodes a message where it arrives); a handler that keeps it makes the next
    /// message start a fresh buffer (copy on write), so a delivered message never changes. A
    /// buffer grown past ``maxReusedInboundCapacity`` goes with its message and is not kept.
    @inline(__always)
    private mutating func deliverSingleFrame(
        _ frame: WebSocketFrameReader.Frame,
        kind: TransportMessage.Kind
    ) -> Action {
        inboundBytes.removeAll(keepingCapacity: true)
        frame.payload.withUnsafeReadableBytes { raw in
            WebSocketMasking.append(raw, to: &inboundBytes, key: frame.maskingKey)
        }
        guard inboundBytes.capacity > Self.maxReusedInboundCapacity else {
            return deliver(kind: kind, bytes: inboundBytes)
        }
        var bytes: [UInt8] = []
        swap(&bytes, &inboundBytes)
        return deliver(kind: kind, bytes: bytes)
    }

    @inline(__always)
    private mutating func deliver(kind: TransportMessage.Kind, bytes: [UInt8]) -> Action {
        if kind == .text, !UTF8Validation.isValid(bytes) {
            return fail(
                TransportError(
                    code: .invalidUTF8, message: "text message is not valid UTF-8", closeCode: .invalidPayload))
        }
        return .deliver(TransportMessage(kind: kind, bytes: bytes))
    }

    private mutating func receiveClose(_ frame: WebSocketFrameReader.Frame) -> Action {
        let received: WebSocketClosePayload.Received
        do {
            received = try WebSocketClosePayload.parse(Self.unmaskedBytes(of: frame))
        } catch {
            return fail(error)
        }
        switch phase {
        case .open:
            phase = .closeReceived
            pendingClosure = TransportClosure(code: received.code, reason: received.reason, initiatedLocally: false)
            return .sendClose(code: received.code, reason: "", thenCloseChannel: true)
        case .closeSent:
            phase = .closeReceived
            return .closeChannel
        case .closeReceived, .failed, .finished:
            return .nothing
        }
    }

    // MARK: Requests of this side

    /// Starts the close handshake with `code` and `reason` (cut to what fits a close frame);
    /// does nothing once closing.
    mutating func closeRequested(code: CloseCode, reason: String) -> Action {
        guard phase == .open else { return .nothing }
        phase = .closeSent
        let reason = WebSocketClosePayload.truncatedReason(reason)
        pendingClosure = TransportClosure(code: code, reason: reason, initiatedLocally: true)
        return .sendClose(code: code, reason: reason, thenCloseChannel: false)
    }

    /// A ping for ``WebSocketTransport/ping()``, numbered by its eight-byte big-endian payload;
    /// nothing once closing.
    mutating func pingRequested() -> Action {
        guard phase == .open else { return .nothing }
        pingCounter &+= 1
        var payload: [UInt8] = []
        payload.reserveCapacity(8)
        for shift in stride(from: 56, through: 0, by: -8) {
            payload.append(UInt8(truncatingIfNeeded: pingCounter >> UInt64(shift)))
        }
        return .sendPing(payload)
    }

    /// The close timer fired: the close handshake took too long, so the channel is cut.
    func closeTimerFired() -> Action {
        .closeChannel
    }

    /// Fails the connection: a close frame with the error's close code if none was sent yet
    /// (the error's message as its reason), then the channel closes.
    mutating func fail(_ error: TransportError) -> Action {
        switch phase {
        case .open:
            phase = .failed
            resetPartial()
            let code = error.closeCode ?? .protocolError
            pendingClosure = TransportClosure(code: code, reason: "", initiatedLocally: true, error: error)
            return .sendClose(code: code, reason: error.message, thenCloseChannel: true)
        case .closeSent, .closeReceived:
            phase = .failed
            return .closeChannel
        case .failed, .finished:
            return .nothing
        }
    }

    /// Ends the connection at once with `error`, without a close frame: the keepalive found
    /// the peer silent, the peer stopped reading, or the channel reported an error.
    mutating func abort(_ error: TransportError, initiatedLocally: Bool) -> Action {
        switch phase {
        case .finished:
            return .nothing
        case .open, .failed:
            if pendingClosure == nil || phase == .open {
                pendingClosure = TransportClosure(
                    code: error.closeCode ?? .abnormal, reason: "", initiatedLocally: initiatedLocally, error: error)
            }
        case .closeSent, .closeReceived:
            break
        }
        phase = .failed
        return .closeChannel
    }

    /// The channel reported `error`: a ``TransportError`` aborts the connection as it is; any
    /// other error aborts it as an I/O failure while the peer's frames are still read, and only
    /// closes the channel after that (data after a close frame changes nothing).
    mutating func errorCaught(_ error: any Error) -> Action {
        if let error = error as? TransportError {
            return abort(error, initiatedLocally: false)
        }
        guard isReading else { return .closeChannel }
        return abort(
            TransportError(code: .ioError, message: "connection failed: \(error)", closeCode: .abnormal, cause: error),
            initiatedLocally: false
        )
    }

    /// The channel is gone: the connection is over, with the closure decided earlier or, when
    /// none was, as lost. Nothing the second time.
    mutating func channelClosed() -> Action {
        guard phase != .finished else { return .nothing }
        phase = .finished
        frameTimerRunning = false
        resetPartial()
        reader.reset()
        inboundBytes = []
        let closure =
            pendingClosure
            ?? TransportClosure(
                code: .abnormal,
                reason: "",
                initiatedLocally: false,
                error: TransportError(code: .closed, message: "connection lost", closeCode: .abnormal)
            )
        return .finish(closure)
    }

    // MARK: Helpers

    private static func protocolViolation(_ message: String) -> TransportError {
        TransportError(code: .protocolViolation, message: message, closeCode: .protocolError)
    }

    private func tooLarge() -> TransportError {
        TransportError(
            code: .messageTooLarge,
            message: "message longer than the limit of \(settings.maxMessageSize) bytes",
            closeCode: .messageTooBig
        )
    }

    /// `error` with the close code that matches its code.
    private static func withCloseCode(_ error: TransportError) -> TransportError {
        var error = error
        if error.closeCode == nil {
            switch error.code {
            case .messageTooLarge: error.closeCode = .messageTooBig
            case .invalidUTF8: error.closeCode = .invalidPayload
            case .protocolViolation: error.closeCode = .protocolError
            default: error.closeCode = .internalError
            }
        }
        return error
    }

    private static func unmaskedBytes(of frame: WebSocketFrameReader.Frame) -> [UInt8] {
        let key = frame.maskingKey
        return frame.payload.withUnsafeReadableBytes { raw in
            WebSocketMasking.array(raw, key: key)
        }
    }

    private static func unmaskedBuffer(
        of frame: WebSocketFrameReader.Frame,
        allocator: ByteBufferAllocator
    ) -> ByteBuffer {
        guard let key = frame.maskingKey else { return frame.payload }
        let data = frame.payload
        var buffer = allocator.buffer(capacity: data.readableBytes)
        _ = data.withUnsafeReadableBytes { raw in
            buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: raw.count) { destination in
                WebSocketMasking.copy(raw, to: destination, key: key)
                return raw.count
            }
        }
        return buffer
    }
}
