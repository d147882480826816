import NIOCore
import RpcTransport

/// The event-loop side of one WebSocket connection, after the opening handshake.
///
/// It reads frames straight from the socket's bytes (``WebSocketFrameReader``) and turns them
/// into messages where they arrive:
/// reassembly of fragments, control frames between fragments, limits, permessage-deflate,
/// UTF-8 checks, automatic pongs, the close handshake and the pings ``WebSocketTransport/ping()``
/// asks for (the keepalive's probes). Complete messages go
/// to the transport's event handler synchronously, on the event loop.
///
/// Outbound it serialises whole frames itself (header, masking key and payload in one buffer)
/// and coalesces flushes: one flush at the end of a read burst, or one per event-loop tick for
/// writes made outside a read.
///
/// Every method runs on the channel's event loop.
final class WebSocketConnectionHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// Where the connection is in its life.
    private enum Phase {
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

    private let settings: WebSocketConnectionSettings
    /// The state shared with the transport object.
    let shared: WebSocketSharedState
    private let codec: PerMessageDeflateCodec?
    private var context: ChannelHandlerContext?
    private var reader: WebSocketFrameReader
    private var eventHandler: (@Sendable (TransportEvent) -> Void)?
    private var backlog: [TransportEvent] = []
    /// The bytes of the messages in ``backlog``; past ``WebSocketConnectionSettings/outboundBufferLimit``
    /// the peer's frames are not read until a handler is installed.
    private var backlogBytes = 0
    /// Whether reading is paused because nobody has started the transport yet.
    private var pausedUntilStart = false
    private var phase: Phase = .open
    private var pendingClosure: TransportClosure?

    // The message being reassembled.
    private var partialKind: TransportMessage.Kind?
    private var partialCompressed = false
    private var partialBytes: [UInt8] = []
    /// The bytes of the last single-frame message, reused for the next (see
    /// ``deliverSingleFrame(_:kind:)``).
    private var inboundBytes: [UInt8] = []
    private var partialWireBytes = 0
    private var inflated: ByteBuffer?

    // Flush coalescing.
    /// Small frames written since the last flush, in one buffer: one pipeline write and one
    /// iovec for all of them instead of one per frame.
    private var coalesced: ByteBuffer?
    /// The last gathering buffer handed to the channel, kept so that the next frames are
    /// gathered in it once the channel has written it and let it go: a busy connection reuses
    /// one buffer instead of allocating one per flush. It costs one buffer of about
    /// `writeCoalescingLimit` bytes per connection.
    private var recycled: ByteBuffer?
    private var inRead = false
    private var needsFlush = false
    private var flushScheduled = false
    /// Work to run after the current read burst, once its writes are flushed (see
    /// ``afterInboundBurst(_:)``); its storage is kept between bursts.
    private var burstEndActions: [BurstEndAction] = []

    // Timers.
    private var closeTimer: Scheduled<Void>?
    /// Fails the connection when a frame that has begun to arrive has not arrived whole within
    /// the frame read timeout; armed while a partial frame is kept.
    private var frameTimer: Scheduled<Void>?
    /// Numbers the pings this side sends (their payload).
    private var pingCounter: UInt64 = 0

    init(settings: WebSocketConnectionSettings, shared: WebSocketSharedState, codec: PerMessageDeflateCodec?) {
        self.settings = settings
        self.shared = shared
        self.codec = codec
        self.reader = WebSocketFrameReader(maxFrameSize: settings.readerMaxFrameSize)
    }

    private var masksOutbound: Bool { settings.role == .client }

    /// A message buffer larger than this is not kept for reuse once its message is delivered.
    static let maxReusedInboundCapacity = 64 * 1024

    /// Frames up to this size are gathered in ``coalesced``; larger ones are written on their own.
    static let maxCoalescedFrameSize = 16 * 1024

    // MARK: Channel events

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        guard context.channel.isActive else {
            finalize()
            return
        }
        shared.setWritable(context.channel.isWritable)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        finalize()
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        finalize()
        context.fireChannelInactive()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        shared.setWritable(context.channel.isWritable)
        updateReading()
        context.fireChannelWritabilityChanged()
    }

    /// Reads the peer's frames only while they have somewhere to go: not before the transport is
    /// started past a bounded backlog (``pausedUntilStart``), and on a server not while the client
    /// is not reading what it is owed (the channel is above its outbound buffer limit), so that
    /// its new requests wait until it catches up. Only a server pauses for the second reason, so
    /// two peers that both write more than they read can never end up waiting for each other.
    private func updateReading() {
        guard let channel = context?.channel else { return }
        let read = !pausedUntilStart && (settings.role == .client || channel.isWritable)
        try? channel.syncOptions?.setOption(.autoRead, value: read)
    }

    /// Aborts the connection when the bytes waiting for the peer passed the hard limit: a peer
    /// that stopped reading while this side still had answers for it. Checked after each flush,
    /// and only while the channel is above its outbound buffer limit, so the common path costs
    /// one flag read.
    private func enforceOutboundLimit() {
        guard let context, !context.channel.isWritable,
            let pending = try? context.channel.syncOptions?.getOption(.bufferedWritableBytes),
            pending > settings.maxPendingOutboundBytes
        else { return }
        abort(
            TransportError(
                code: .peerNotReading,
                message: "the peer has not read \(pending) bytes sent to it (the limit is \(settings.maxPendingOutboundBytes))",
                closeCode: .policyViolation),
            initiatedLocally: true)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        inRead = false
        // Flushed from a task rather than here: work the read burst started on this loop (a
        // resumed caller, a target's answer) runs first, and its frames leave in the same write.
        // The burst's end actions run after that flush, or now when there is nothing to write.
        if needsFlush {
            markNeedsFlush()
        } else if !flushScheduled {
            runBurstEndActions()
        }
        context.fireChannelReadComplete()
    }

    /// Runs `body` after the current read burst, once the writes it caused are flushed; at
    /// once outside a burst.
    func afterInboundBurst(_ body: @escaping () -> Void) {
        guard inRead || flushScheduled, phase != .finished else {
            body()
            return
        }
        burstEndActions.append(BurstEndAction(run: body))
    }

    /// A closure kept in a struct, so that an array can hold it as it is: an array of bare
    /// closures would wrap each one in a thunk, an allocation per burst.
    private struct BurstEndAction {
        let run: () -> Void
    }

    private func runBurstEndActions() {
        guard !burstEndActions.isEmpty else { return }
        var actions: [BurstEndAction] = []
        swap(&actions, &burstEndActions)
        for action in actions { action.run() }
        actions.removeAll(keepingCapacity: true)
        if burstEndActions.isEmpty { burstEndActions = actions }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        switch error {
        case let error as TransportError:
            abort(error, initiatedLocally: false)
        default:
            guard phase == .open || phase == .closeSent else {
                // Errors after the close started (for example data after a close frame) change nothing.
                context.close(promise: nil)
                return
            }
            abort(
                TransportError(
                    code: .ioError,
                    message: "connection failed: \(error)",
                    closeCode: .abnormal,
                    cause: error
                ),
                initiatedLocally: false
            )
        }
    }

    /// Reads the frames in the bytes of one read; the start of an incomplete frame is kept for
    /// the next.
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        inRead = true
        var buffer = unwrapInboundIn(data)
        reader.prepend(to: &buffer)
        var completedFrame = false
        while phase == .open || phase == .closeSent {
            let frame: WebSocketFrameReader.Frame?
            do {
                frame = try reader.next(in: &buffer)
            } catch {
                fail(error)
                return
            }
            guard let frame else {
                let partial = buffer.readableBytes > 0
                reader.keepRemainder(of: consume buffer, allocator: context.channel.allocator)
                watchPartialFrame(partial, restarted: completedFrame)
                return
            }
            completedFrame = true
            receive(frame)
        }
    }

    /// Arms the frame read timer when a frame has begun to arrive (`partial`), and disarms it
    /// once none is pending. The timer runs from the start of the frame, not from each read, so
    /// a peer trickling a frame byte by byte cannot hold the connection longer than the timeout;
    /// it starts again when the pending frame is a new one (`restarted`: a frame completed in
    /// this read).
    private func watchPartialFrame(_ partial: Bool, restarted: Bool) {
        if !partial || restarted {
            frameTimer?.cancel()
            frameTimer = nil
        }
        guard partial, frameTimer == nil, let context else { return }
        let timeout = settings.frameReadTimeout
        frameTimer = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) {
            self.frameTimer = nil
            self.fail(
                TransportError(
                    code: .readTimeout,
                    message: "a frame began to arrive and did not finish within \(timeout.nanoseconds / 1_000_000) ms",
                    closeCode: .policyViolation))
        }
    }

    private func receive(_ frame: WebSocketFrameReader.Frame) {
        switch settings.role {
        case .server where frame.maskingKey == nil:
            fail(protocolViolation("client frame is not masked"))
            return
        case .client where frame.maskingKey != nil:
            fail(protocolViolation("server frame is masked"))
            return
        default:
            break
        }
        if frame.otherReservedBits {
            fail(protocolViolation("reserved bits set without a negotiated extension"))
            return
        }
        if frame.isControl, frame.rsv1 {
            fail(protocolViolation("RSV1 set on a control frame"))
            return
        }
        switch frame.opcode {
        case WebSocketFrameWriter.Opcode.text.rawValue:
            receiveFirstFrame(frame, kind: .text)
        case WebSocketFrameWriter.Opcode.binary.rawValue:
            receiveFirstFrame(frame, kind: .binary)
        case WebSocketFrameWriter.Opcode.continuation.rawValue:
            receiveContinuation(frame)
        case WebSocketFrameWriter.Opcode.ping.rawValue:
            receivePing(frame)
        case WebSocketFrameWriter.Opcode.pong.rawValue:
            shared.pings.answerAll()
        case WebSocketFrameWriter.Opcode.close.rawValue:
            receiveClose(frame)
        default:
            fail(protocolViolation("frame with the reserved opcode \(frame.opcode)"))
        }
    }

    // MARK: Inbound messages

    private func receiveFirstFrame(_ frame: WebSocketFrameReader.Frame, kind: TransportMessage.Kind) {
        guard partialKind == nil else {
            fail(protocolViolation("new message started before the fragmented one ended"))
            return
        }
        let length = frame.payload.readableBytes
        guard length <= settings.maxMessageSize else {
            fail(tooLarge())
            return
        }
        if frame.rsv1 {
            guard codec != nil else {
                fail(protocolViolation("RSV1 set without permessage-deflate"))
                return
            }
            partialKind = kind
            partialCompressed = true
            partialWireBytes = length
            inflated = context?.channel.allocator.buffer(capacity: 0) ?? ByteBuffer()
            inflate(frame)
        } else if frame.fin {
            deliverSingleFrame(frame, kind: kind)
        } else {
            partialKind = kind
            partialCompressed = false
            partialWireBytes = length
            partialBytes = Self.unmaskedBytes(of: frame)
        }
    }

    private func receiveContinuation(_ frame: WebSocketFrameReader.Frame) {
        guard partialKind != nil else {
            fail(protocolViolation("continuation frame without a message to continue"))
            return
        }
        guard !frame.rsv1 else {
            fail(protocolViolation("RSV1 set on a continuation frame"))
            return
        }
        let length = frame.payload.readableBytes
        partialWireBytes = partialWireBytes.saturatingAdding(length)
        guard partialWireBytes < Int.max, partialWireBytes <= settings.maxMessageSize else {
            fail(tooLarge())
            return
        }
        if partialCompressed {
            inflate(frame)
        } else {
            frame.payload.withUnsafeReadableBytes { raw in
                WebSocketMasking.append(raw, to: &partialBytes, key: frame.maskingKey)
            }
            if frame.fin, let kind = partialKind {
                let bytes = partialBytes
                resetPartial()
                deliver(kind: kind, bytes: bytes)
            }
        }
    }

    /// Feeds one frame of a compressed message to the decompressor; delivers on the last one.
    private func inflate(_ frame: WebSocketFrameReader.Frame) {
        guard let codec, var output = inflated else { return }
        inflated = nil
        let payload = Self.unmaskedBuffer(of: frame, allocator: context?.channel.allocator ?? ByteBufferAllocator())
        do {
            try codec.decompressFragment(payload, isFinal: frame.fin, into: &output)
        } catch {
            resetPartial()
            fail(Self.withCloseCode(error))
            return
        }
        guard frame.fin else {
            inflated = output
            return
        }
        let kind = partialKind ?? .binary
        resetPartial()
        let bytes = output.readBytes(length: output.readableBytes) ?? []
        deliver(kind: kind, bytes: bytes)
    }

    private func resetPartial() {
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
    /// message start a fresh buffer (copy on write), so a delivered message never changes.
    private func deliverSingleFrame(_ frame: WebSocketFrameReader.Frame, kind: TransportMessage.Kind) {
        inboundBytes.removeAll(keepingCapacity: true)
        frame.payload.withUnsafeReadableBytes { raw in
            WebSocketMasking.append(raw, to: &inboundBytes, key: frame.maskingKey)
        }
        deliver(kind: kind, bytes: inboundBytes)
        if inboundBytes.capacity > Self.maxReusedInboundCapacity {
            inboundBytes = []
        }
    }

    private func deliver(kind: TransportMessage.Kind, bytes: [UInt8]) {
        if kind == .text, !UTF8Validation.isValid(bytes) {
            fail(
                TransportError(code: .invalidUTF8, message: "text message is not valid UTF-8", closeCode: .invalidPayload)
            )
            return
        }
        emit(.message(TransportMessage(kind: kind, bytes: bytes)))
    }

    private func receivePing(_ frame: WebSocketFrameReader.Frame) {
        guard phase == .open, let context else { return }
        let payload = Self.unmaskedBytes(of: frame)
        let pong = WebSocketFrameWriter.frame(
            opcode: .pong, bytes: payload, masked: masksOutbound, allocator: context.channel.allocator)
        writeCoalesced(context: context)
        context.write(wrapOutboundOut(pong), promise: nil)
        markNeedsFlush()
    }

    private func receiveClose(_ frame: WebSocketFrameReader.Frame) {
        let received: WebSocketClosePayload.Received
        do {
            received = try WebSocketClosePayload.parse(Self.unmaskedBytes(of: frame))
        } catch {
            fail(error)
            return
        }
        switch phase {
        case .open:
            phase = .closeReceived
            pendingClosure = TransportClosure(code: received.code, reason: received.reason, initiatedLocally: false)
            shared.beginClosing()
            writeCloseFrame(code: received.code, reason: "", thenClose: true)
            armCloseTimer()
        case .closeSent:
            phase = .closeReceived
            context?.close(promise: nil)
        case .closeReceived, .failed, .finished:
            break
        }
    }

    // MARK: Outbound messages

    /// Writes a message enqueued on the event loop; flushed at the end of the tick or read burst.
    ///
    /// Messages enqueued earlier from other threads and not yet drained are written first, so
    /// that the peer receives messages in the order they were enqueued.
    func enqueueOnLoop(_ message: TransportMessage) throws(TransportError) {
        guard phase == .open, context != nil else {
            throw WebSocketSharedState.notOpenError(shared.lifecycle)
        }
        let earlier = shared.takeOffLoopMessages()
        for pending in earlier {
            writeMessage(pending)
        }
        writeMessage(message)
        if !earlier.isEmpty {
            shared.wakeSendersIfRoom()
        }
        markNeedsFlush()
    }

    /// Writes the messages enqueued away from the event loop and flushes them.
    func drainOffLoopMessages() {
        let messages = shared.takeOffLoopMessages()
        if phase == .open, context != nil {
            for message in messages {
                writeMessage(message)
            }
            needsFlush = needsFlush || !messages.isEmpty
            if !inRead {
                flushIfNeeded()
            }
        }
        shared.wakeSendersIfRoom()
    }

    private func writeMessage(_ message: TransportMessage) {
        guard let context else { return }
        let opcode: WebSocketFrameWriter.Opcode = message.kind == .text ? .text : .binary
        if let codec, codec.shouldCompress(payloadSize: message.bytes.count) {
            var input = context.channel.allocator.buffer(capacity: message.bytes.count)
            input.writeBytes(message.bytes)
            let compressed: ByteBuffer
            do {
                compressed = try codec.compress(input, allocator: context.channel.allocator)
            } catch {
                fail(
                    TransportError(
                        code: error.code, message: error.message, closeCode: .internalError, cause: error.cause)
                )
                return
            }
            compressed.withUnsafeReadableBytes { raw in
                writeFragments(raw, opcode: opcode, rsv1: true, context: context)
            }
        } else {
            message.bytes.withUnsafeBytes { raw in
                writeFragments(raw, opcode: opcode, rsv1: false, context: context)
            }
        }
    }

    private func writeFragments(
        _ payload: UnsafeRawBufferPointer,
        opcode: WebSocketFrameWriter.Opcode,
        rsv1: Bool,
        context: ChannelHandlerContext
    ) {
        let fragmentSize = max(settings.maxOutboundFrameSize, 1)
        if payload.count <= min(fragmentSize, Self.maxCoalescedFrameSize) {
            var buffer = coalesced ?? gatheringBuffer(context: context)
            coalesced = nil
            WebSocketFrameWriter.write(
                opcode: opcode, fin: true, rsv1: rsv1, payload: payload, masked: masksOutbound, into: &buffer)
            if buffer.readableBytes >= settings.writeCoalescingLimit {
                // Enough for the peer to start on while this side goes on producing.
                recycled = buffer
                context.writeAndFlush(wrapOutboundOut(buffer), promise: nil)
            } else {
                coalesced = buffer
            }
            return
        }
        writeCoalesced(context: context)
        let allocator = context.channel.allocator
        guard payload.count > fragmentSize else {
            let frame = WebSocketFrameWriter.frame(
                opcode: opcode, fin: true, rsv1: rsv1, payload: payload, masked: masksOutbound, allocator: allocator)
            context.write(wrapOutboundOut(frame), promise: nil)
            return
        }
        var offset = 0
        while offset < payload.count {
            let end = min(offset + fragmentSize, payload.count)
            let first = offset == 0
            let frame = WebSocketFrameWriter.frame(
                opcode: first ? opcode : .continuation,
                fin: end == payload.count,
                rsv1: first && rsv1,
                payload: UnsafeRawBufferPointer(rebasing: payload[offset ..< end]),
                masked: masksOutbound,
                allocator: allocator
            )
            context.write(wrapOutboundOut(frame), promise: nil)
            offset = end
        }
    }

    private func markNeedsFlush() {
        needsFlush = true
        guard !inRead, !flushScheduled, let context else { return }
        flushScheduled = true
        context.eventLoop.assumeIsolated().execute {
            self.flushScheduled = false
            self.flushIfNeeded()
            if !self.inRead { self.runBurstEndActions() }
        }
    }

    private func flushIfNeeded() {
        guard needsFlush, let context else { return }
        needsFlush = false
        writeCoalesced(context: context)
        context.flush()
        enforceOutboundLimit()
    }

    /// Passes the gathered small frames down the pipeline, ahead of anything written after.
    private func writeCoalesced(context: ChannelHandlerContext) {
        guard let buffer = coalesced else { return }
        coalesced = nil
        recycled = buffer
        context.write(wrapOutboundOut(buffer), promise: nil)
    }

    /// An empty buffer to gather frames in, with room for a full batch up front so that
    /// gathering does not reallocate: the recycled one when the channel is done with it
    /// (`clear()` allocates afresh if the channel still holds it), a new one otherwise.
    private func gatheringBuffer(context: ChannelHandlerContext) -> ByteBuffer {
        guard var buffer = recycled else {
            return context.channel.allocator.buffer(
                capacity: min(settings.writeCoalescingLimit, Self.maxCoalescedFrameSize) + 512)
        }
        recycled = nil
        buffer.clear()
        return buffer
    }

    // MARK: Closing

    /// Starts the close handshake with `code` and `reason`; does nothing once closing.
    func closeLocally(code: CloseCode, reason: String) {
        guard phase == .open, context != nil else { return }
        phase = .closeSent
        let reason = WebSocketClosePayload.truncatedReason(reason)
        pendingClosure = TransportClosure(code: code, reason: reason, initiatedLocally: true)
        shared.beginClosing()
        writeCloseFrame(code: code, reason: reason, thenClose: false)
        armCloseTimer()
    }

    /// Writes and flushes a close frame; closes the channel once it is written if asked to.
    private func writeCloseFrame(code: CloseCode, reason: String, thenClose: Bool) {
        guard let context else { return }
        let payload = WebSocketClosePayload.encode(code: code, reason: reason)
        let frame = WebSocketFrameWriter.frame(
            opcode: .close, bytes: payload, masked: masksOutbound, allocator: context.channel.allocator)
        needsFlush = false
        writeCoalesced(context: context)
        let written = context.writeAndFlush(wrapOutboundOut(frame))
        if thenClose {
            written.assumeIsolated().whenComplete { _ in
                self.context?.close(promise: nil)
            }
        }
    }

    private func armCloseTimer() {
        guard closeTimer == nil, let context else { return }
        closeTimer = context.eventLoop.assumeIsolated().scheduleTask(in: settings.closeTimeout) {
            self.context?.close(promise: nil)
        }
    }

    /// Fails the connection: sends a close frame with the error's close code if none was sent
    /// yet, then closes the channel.
    private func fail(_ error: TransportError) {
        switch phase {
        case .open:
            phase = .failed
            resetPartial()
            let code = error.closeCode ?? .protocolError
            pendingClosure = TransportClosure(code: code, reason: "", initiatedLocally: true, error: error)
            shared.beginClosing()
            writeCloseFrame(code: code, reason: error.message, thenClose: true)
            armCloseTimer()
        case .closeSent, .closeReceived:
            phase = .failed
            context?.close(promise: nil)
        case .failed, .finished:
            break
        }
    }

    /// Ends the connection at once, without a close frame.
    private func abort(_ error: TransportError, initiatedLocally: Bool) {
        switch phase {
        case .finished:
            return
        case .open, .failed:
            if pendingClosure == nil || phase == .open {
                pendingClosure = TransportClosure(
                    code: error.closeCode ?? .abnormal, reason: "", initiatedLocally: initiatedLocally, error: error)
            }
        case .closeSent, .closeReceived:
            break
        }
        phase = .failed
        shared.beginClosing()
        context?.close(promise: nil)
    }

    /// Delivers the final event once the channel is gone.
    private func finalize() {
        guard phase != .finished else { return }
        phase = .finished
        closeTimer?.cancel()
        closeTimer = nil
        frameTimer?.cancel()
        frameTimer = nil
        resetPartial()
        reader.reset()
        recycled = nil
        inboundBytes = []
        let closure =
            pendingClosure
            ?? TransportClosure(
                code: .abnormal,
                reason: "",
                initiatedLocally: false,
                error: TransportError(code: .closed, message: "connection lost", closeCode: .abnormal)
            )
        _ = shared.takeOffLoopMessages()
        shared.finish(closure)
        shared.pings.end(closure.asError)
        runBurstEndActions()
        emit(.closed(closure))
        eventHandler = nil
    }

    // MARK: Event delivery

    /// Starts delivering events to `handler`: first those that arrived before, then new ones.
    func install(_ handler: @escaping @Sendable (TransportEvent) -> Void) {
        let earlier = backlog
        backlog = []
        backlogBytes = 0
        for event in earlier {
            handler(event)
        }
        if phase != .finished {
            eventHandler = handler
        }
        if pausedUntilStart {
            pausedUntilStart = false
            updateReading()
        }
    }

    private func emit(_ event: TransportEvent) {
        if let eventHandler {
            eventHandler(event)
            return
        }
        backlog.append(event)
        if case .message(let message) = event {
            backlogBytes += message.bytes.count
        }
        // Nobody reads the events yet: hold a bounded amount of them, not all the peer sends.
        if !pausedUntilStart, backlogBytes > settings.outboundBufferLimit {
            pausedUntilStart = true
            updateReading()
        }
    }

    // MARK: Ping

    /// Sends a ping frame (its payload numbers it); the pong is matched in ``receive(_:)``.
    func sendPing() {
        guard phase == .open, let context else { return }
        pingCounter &+= 1
        var payload: [UInt8] = []
        payload.reserveCapacity(8)
        for shift in stride(from: 56, through: 0, by: -8) {
            payload.append(UInt8(truncatingIfNeeded: pingCounter >> UInt64(shift)))
        }
        let ping = WebSocketFrameWriter.frame(
            opcode: .ping, bytes: payload, masked: masksOutbound, allocator: context.channel.allocator)
        writeCoalesced(context: context)
        context.write(wrapOutboundOut(ping), promise: nil)
        markNeedsFlush()
    }

    /// Ends the connection at once with `error`, without a close handshake (the keepalive
    /// found the peer silent).
    func abortLocally(_ error: TransportError) {
        abort(error, initiatedLocally: true)
    }

    // MARK: Helpers

    private func protocolViolation(_ message: String) -> TransportError {
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

    private static func unmaskedBuffer(of frame: WebSocketFrameReader.Frame, allocator: ByteBufferAllocator) -> ByteBuffer {
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
