import NIOCore
import RpcTransport

/// The event-loop side of one WebSocket connection, after the opening handshake: the I/O
/// around a ``WebSocketStateMachine``.
///
/// Inbound it hands the bytes of each socket read to the state machine, which reads the frames
/// and decides what they mean, and performs the actions it returns: complete messages go to
/// the transport's event handler synchronously, on the event loop; pongs, close frames and the
/// pings ``WebSocketTransport/ping()`` asks for are written; the close and frame read timers are
/// scheduled on the event loop; the channel is closed. It pauses reading while nobody has
/// started the transport past a bounded backlog, or (on a server) while the client is not
/// reading what it is owed, and aborts a peer that stopped reading altogether.
///
/// Outbound it serialises whole frames itself (header, masking key and payload in one buffer),
/// compresses them when permessage-deflate was agreed, and coalesces flushes: one flush at the
/// end of a read burst, or one per event-loop tick for writes made outside a read.
///
/// Every method runs on the channel's event loop. The state machine is never asked anything
/// while one of its actions is being performed by a call it made: each action is performed
/// after the input that returned it has finished.
final class WebSocketConnectionHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let settings: WebSocketConnectionSettings
    /// The state shared with the transport object.
    let shared: WebSocketSharedState
    private let codec: PerMessageDeflateCodec?
    private var context: ChannelHandlerContext?
    /// The WebSocket protocol: frames, messages, the close handshake and how the connection ended.
    private var machine: WebSocketStateMachine
    private var eventHandler: (@Sendable (TransportEvent) -> Void)?
    private var backlog: [TransportEvent] = []
    /// The bytes of the messages in ``backlog``; past ``WebSocketConnectionSettings/outboundBufferLimit``
    /// the peer's frames are not read until a handler is installed.
    private var backlogBytes = 0
    /// Whether reading is paused because nobody has started the transport yet.
    private var pausedUntilStart = false

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
    /// Cuts the connection when the close handshake takes longer than the close timeout.
    private var closeTimer: Scheduled<Void>?
    /// Runs while a frame that has begun to arrive has not arrived whole (see
    /// ``WebSocketStateMachine/endRead(keeping:allocator:)``).
    private var frameTimer: Scheduled<Void>?

    init(settings: WebSocketConnectionSettings, shared: WebSocketSharedState, codec: PerMessageDeflateCodec?) {
        self.settings = settings
        self.shared = shared
        self.codec = codec
        self.machine = WebSocketStateMachine(settings: settings, codec: codec)
    }

    private var masksOutbound: Bool { settings.role == .client }

    /// Frames up to this size are gathered in ``coalesced``; larger ones are written on their own.
    static let maxCoalescedFrameSize = 16 * 1024

    // MARK: Channel events

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        guard context.channel.isActive else {
            perform(machine.channelClosed())
            return
        }
        shared.setWritable(context.channel.isWritable)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        perform(machine.channelClosed())
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        perform(machine.channelClosed())
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
        perform(
            machine.abort(
                TransportError(
                    code: .peerNotReading,
                    message: "the peer has not read \(pending) bytes sent to it (the limit is \(settings.maxPendingOutboundBytes))",
                    closeCode: .policyViolation),
                initiatedLocally: true))
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
        guard inRead || flushScheduled, !machine.isFinished else {
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
        perform(machine.errorCaught(error))
    }

    /// Hands the bytes of one read to the state machine and performs what each of its frames
    /// asks for; the start of an incomplete frame is kept for the next read.
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        inRead = true
        var buffer = unwrapInboundIn(data)
        machine.beginRead(&buffer)
        while let action = machine.nextReadAction(in: &buffer) {
            // Messages, by far the most frequent action, without the call.
            if case .deliver(let message) = action {
                emit(.message(message))
            } else {
                perform(action)
            }
        }
        perform(machine.endRead(keeping: consume buffer, allocator: context.channel.allocator))
    }

    // MARK: Actions

    /// Does what the state machine asked for.
    private func perform(_ action: WebSocketStateMachine.Action) {
        switch action {
        case .nothing:
            break
        case .deliver(let message):
            emit(.message(message))
        case .answerPings:
            shared.pings.answerAll()
        case .sendPong(let payload):
            writeControlFrame(.pong, payload: payload)
        case .sendPing(let payload):
            writeControlFrame(.ping, payload: payload)
        case .sendClose(let code, let reason, let thenCloseChannel):
            shared.beginClosing()
            writeCloseFrame(code: code, reason: reason, thenClose: thenCloseChannel)
            armCloseTimer()
        case .closeChannel:
            shared.beginClosing()
            context?.close(promise: nil)
        case .startFrameTimer:
            startFrameTimer()
        case .cancelFrameTimer:
            frameTimer?.cancel()
            frameTimer = nil
        case .finish(let closure):
            finish(closure)
        }
    }

    /// Writes a ping or pong after the frames gathered so far; flushed at the end of the tick
    /// or read burst.
    private func writeControlFrame(_ opcode: WebSocketFrameWriter.Opcode, payload: [UInt8]) {
        guard let context else { return }
        let frame = WebSocketFrameWriter.frame(
            opcode: opcode, bytes: payload, masked: masksOutbound, allocator: context.channel.allocator)
        writeCoalesced(context: context)
        context.write(wrapOutboundOut(frame), promise: nil)
        markNeedsFlush()
    }

    /// Starts the frame read timer afresh; when it fires the connection fails.
    private func startFrameTimer() {
        frameTimer?.cancel()
        frameTimer = nil
        guard let context else { return }
        frameTimer = context.eventLoop.assumeIsolated().scheduleTask(in: settings.frameReadTimeout) {
            self.frameTimer = nil
            self.perform(self.machine.frameReadTimerFired())
        }
    }

    // MARK: Outbound messages

    /// Writes a message enqueued on the event loop; flushed at the end of the tick or read burst.
    ///
    /// Messages enqueued earlier from other threads and not yet drained are written first, so
    /// that the peer receives messages in the order they were enqueued.
    func enqueueOnLoop(_ message: TransportMessage) throws(TransportError) {
        guard machine.isOpen, context != nil else {
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
        if machine.isOpen, context != nil {
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
                perform(
                    machine.fail(
                        TransportError(
                            code: error.code, message: error.message, closeCode: .internalError, cause: error.cause)))
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
        guard context != nil else { return }
        perform(machine.closeRequested(code: code, reason: reason))
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
            self.perform(self.machine.closeTimerFired())
        }
    }

    /// Delivers the final event once the channel is gone.
    private func finish(_ closure: TransportClosure) {
        closeTimer?.cancel()
        closeTimer = nil
        frameTimer?.cancel()
        frameTimer = nil
        recycled = nil
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
        if !machine.isFinished {
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

    /// Sends a ping frame (its payload numbers it); any pong answers the tasks waiting.
    func sendPing() {
        guard context != nil else { return }
        perform(machine.pingRequested())
    }

    /// Ends the connection at once with `error`, without a close handshake (the keepalive
    /// found the peer silent).
    func abortLocally(_ error: TransportError) {
        perform(machine.abort(error, initiatedLocally: true))
    }
}
