import NIOCore
import RpcTransport
import RpcWire

/// A channel handler that secures a connection with TLS through an ``OpenSSLConnection``.
///
/// Inbound ciphertext is fed to the session and the plaintext it yields is passed on; outbound
/// plaintext is encrypted and the ciphertext written to the channel. Writes made before the
/// handshake completes are buffered and sent, in order, once it does. The handshake starts as
/// soon as the channel is active.
///
/// On success the handler completes the handshake promise and fires ``TLSHandshakeCompleted``.
/// On failure (a TLS error, a pin mismatch, the connection ending mid-handshake, the optional
/// timeout) it fails the promise and every buffered write, fires the ``TransportError`` through
/// `errorCaught`, and closes the channel: a handshake never hangs on a dead or silent peer
/// when a timeout is set, nor on a closed one in any case.
///
/// Closing sends close_notify (best effort, without waiting for the peer's) and then closes.
final class OpenSSLHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// The side this handler plays, with what that side checks after the handshake.
    enum Role {
        /// A client; the server's leaf certificate must match one of `pins` unless it is empty.
        case client(pins: [PublicKeyPin])
        /// A server.
        case server
    }

    private enum State {
        /// The channel is not active yet.
        case idle
        /// The handshake is in flight; writes are buffered.
        case handshaking
        /// Application data flows both ways.
        case open
        /// Our close_notify is sent; reads still flow.
        case outputClosed
        /// Closed or failed; input is dropped and writes fail.
        case closed
    }

    private struct BufferedWrite {
        var plaintext: ByteBuffer
        var promise: EventLoopPromise<Void>?
    }

    /// The most plaintext one TLS record carries.
    private static let maximumRecordSize = 16 * 1024

    private let connection: OpenSSLConnection
    private let role: Role
    private let handshakeTimeout: TimeAmount?
    private var handshakePromise: EventLoopPromise<TLSHandshakeCompleted>?
    private var state = State.idle
    private var bufferedWrites: [BufferedWrite] = []
    /// How many of `bufferedWrites` a flush covered.
    private var flushedBufferedWriteCount = 0
    private var scheduledTimeout: Scheduled<Void>?
    private var receivedApplicationData = false

    /// Creates a handler driving `connection`.
    ///
    /// - Parameters:
    ///   - handshakeTimeout: fail with ``TransportError/Code/handshakeTimeout`` if the handshake
    ///     has not completed this long after it started; `nil` for no limit.
    ///   - handshakePromise: completed with the handshake's outcome.
    init(
        connection: OpenSSLConnection,
        role: Role,
        handshakeTimeout: TimeAmount?,
        handshakePromise: EventLoopPromise<TLSHandshakeCompleted>?
    ) {
        self.connection = connection
        self.role = role
        self.handshakeTimeout = handshakeTimeout
        self.handshakePromise = handshakePromise
    }

    private var peerName: String {
        switch role {
        case .client: "server"
        case .server: "client"
        }
    }

    private var isClient: Bool {
        if case .client = role { return true }
        return false
    }

    private var isReadable: Bool {
        switch state {
        case .open, .outputClosed: true
        case .idle, .handshaking, .closed: false
        }
    }

    private var isHandshaking: Bool {
        switch state {
        case .idle, .handshaking: true
        case .open, .outputClosed, .closed: false
        }
    }

    // MARK: - Lifecycle

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive {
            startHandshake(context: context)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelTimeout()
        state = .closed
        failPending(TransportError(code: .closed, message: "the TLS handler was removed from the pipeline"))
    }

    func channelActive(context: ChannelHandlerContext) {
        startHandshake(context: context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        if isHandshaking {
            fail(
                context: context,
                error: TransportError(
                    code: .tlsHandshakeFailed,
                    message: "the connection closed during the TLS handshake"
                )
            )
        } else {
            state = .closed
            cancelTimeout()
        }
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let channelEvent = event as? ChannelEvent, channelEvent == .inputClosed, isHandshaking {
            fail(
                context: context,
                error: TransportError(
                    code: .tlsHandshakeFailed,
                    message: "the peer stopped sending during the TLS handshake"
                )
            )
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if isHandshaking {
            // A reset or similar during the handshake surfaces as the handshake failing.
            fail(
                context: context,
                error: TransportError(
                    code: .tlsHandshakeFailed,
                    message: "the connection failed during the TLS handshake: \(error)",
                    cause: error
                )
            )
        } else {
            context.fireErrorCaught(error)
        }
    }

    // MARK: - Inbound

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .closed = state { return }
        let ciphertext = Self.unwrapInboundIn(data)
        guard connection.feed(ciphertext) else {
            fail(
                context: context,
                error: TransportError(
                    code: isHandshaking ? .tlsHandshakeFailed : .ioError,
                    message: "cannot buffer ciphertext received from the \(peerName)"
                )
            )
            return
        }
        switch state {
        case .idle:
            startHandshake(context: context)
        case .handshaking:
            advanceHandshake(context: context)
        case .open, .outputClosed:
            readPlaintext(context: context)
        case .closed:
            break
        }
    }

    // MARK: - Outbound

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let plaintext = Self.unwrapOutboundIn(data)
        switch state {
        case .idle, .handshaking:
            bufferedWrites.append(BufferedWrite(plaintext: plaintext, promise: promise))
        case .open:
            encryptAndWrite(context: context, plaintext: plaintext, promise: promise)
        case .outputClosed, .closed:
            promise?.fail(TransportError(code: .closed, message: "the TLS connection is closed for writing"))
        }
    }

    func flush(context: ChannelHandlerContext) {
        if isHandshaking {
            flushedBufferedWriteCount = bufferedWrites.count
        } else {
            context.flush()
        }
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        if mode == .input {
            context.close(mode: mode, promise: promise)
            return
        }
        switch state {
        case .open:
            // Best effort: close_notify is sent, the peer's answer is not awaited.
            connection.shutdown()
            if writeNetworkOutput(context: context, promise: nil) {
                context.flush()
            }
            state = mode == .all ? .closed : .outputClosed
        case .outputClosed:
            if mode == .all {
                state = .closed
            }
        case .idle, .handshaking:
            state = .closed
            cancelTimeout()
            failPending(
                TransportError(code: .closed, message: "the connection was closed before the TLS handshake completed")
            )
        case .closed:
            break
        }
        context.close(mode: mode, promise: promise)
    }

    // MARK: - Handshake

    private func startHandshake(context: ChannelHandlerContext) {
        guard case .idle = state else { return }
        state = .handshaking
        if let handshakeTimeout {
            scheduledTimeout = context.eventLoop.assumeIsolated().scheduleTask(in: handshakeTimeout) {
                [weak self] in
                self?.handshakeDidTimeOut(context: context, after: handshakeTimeout)
            }
        }
        advanceHandshake(context: context)
    }

    private func advanceHandshake(context: ChannelHandlerContext) {
        while case .handshaking = state {
            let outcome = connection.handshake()
            // Handshake flights (and alerts) go out right away.
            let wrote = writeNetworkOutput(context: context, promise: nil)
            if wrote {
                context.flush()
            }
            switch outcome {
            case .success:
                completeHandshake(context: context)
                return
            case .wantRead:
                context.read()
                return
            case .wantWrite:
                if !wrote {
                    fail(context: context, error: stalled("handshake"))
                    return
                }
            case .closedByPeer:
                fail(
                    context: context,
                    error: TransportError(
                        code: .tlsHandshakeFailed,
                        message: "the \(peerName) closed the TLS session during the handshake"
                    )
                )
                return
            case .failed(let failure):
                fail(context: context, error: failure.handshakeError(peer: peerName))
                return
            }
        }
    }

    private func completeHandshake(context: ChannelHandlerContext) {
        cancelTimeout()
        if case .client(let pins) = role, !pins.isEmpty, let mismatch = pinMismatch(pins) {
            fail(context: context, error: mismatch)
            return
        }
        state = .open
        let result = TLSHandshakeCompleted(
            applicationProtocol: connection.negotiatedApplicationProtocol,
            protocolVersion: connection.negotiatedVersion
        )

        // Writes made during the handshake go first, in order, flushed as far as they were.
        let writes = bufferedWrites
        let flushedCount = flushedBufferedWriteCount
        bufferedWrites = []
        flushedBufferedWriteCount = 0
        for (index, write) in writes.enumerated() {
            guard case .open = state else {
                write.promise?.fail(TransportError(code: .closed, message: "the TLS connection is closed"))
                continue
            }
            encryptAndWrite(context: context, plaintext: write.plaintext, promise: write.promise)
            if index + 1 == flushedCount {
                context.flush()
            }
        }
        guard case .open = state else { return }

        let promise = handshakePromise
        handshakePromise = nil
        promise?.succeed(result)
        context.fireUserInboundEventTriggered(result)

        // Application data may have arrived together with the handshake's last flight.
        if isReadable {
            readPlaintext(context: context)
        }
    }

    private func handshakeDidTimeOut(context: ChannelHandlerContext, after timeout: TimeAmount) {
        guard isHandshaking else { return }
        let milliseconds = timeout.nanoseconds / 1_000_000
        fail(
            context: context,
            error: TransportError(
                code: .handshakeTimeout,
                message: "the TLS handshake did not complete within \(milliseconds) ms"
            )
        )
    }

    /// The error to fail with when the server's leaf key matches no pin, or `nil` when it matches.
    private func pinMismatch(_ pins: [PublicKeyPin]) -> TransportError? {
        guard let leaf = connection.peerLeafCertificate() else {
            return TransportError(
                code: .pinMismatch,
                message: "the server presented no certificate to check the pins against"
            )
        }
        guard let digest = leaf.subjectPublicKeyInfoSHA256() else {
            return TransportError(
                code: .pinMismatch,
                message: "cannot hash the public key of the server's certificate"
            )
        }
        if pins.contains(where: { $0.sha256 == digest }) {
            return nil
        }
        return TransportError(
            code: .pinMismatch,
            message: "the server's public key sha256/\(Base64.encode(digest, padded: true)) matches none of the "
                + "\(pins.count) pinned key\(pins.count == 1 ? "" : "s")"
        )
    }

    // MARK: - Data

    private func encryptAndWrite(
        context: ChannelHandlerContext,
        plaintext: ByteBuffer,
        promise: EventLoopPromise<Void>?
    ) {
        var remaining = plaintext
        while remaining.readableBytes > 0 {
            switch connection.write(from: &remaining) {
            case .success:
                continue
            case .wantWrite:
                if !writeNetworkOutput(context: context, promise: nil) {
                    let error = stalled("write")
                    promise?.fail(error)
                    fail(context: context, error: error)
                    return
                }
            case .wantRead:
                // Renegotiation is off, so a write never waits for the peer.
                let error = stalled("write")
                promise?.fail(error)
                fail(context: context, error: error)
                return
            case .closedByPeer:
                promise?.fail(TransportError(code: .closed, message: "the \(peerName) closed the TLS session"))
                return
            case .failed(let failure):
                let error = failure.connectionError(beforeApplicationData: false)
                promise?.fail(error)
                fail(context: context, error: error)
                return
            }
        }
        if !writeNetworkOutput(context: context, promise: promise) {
            // Empty plaintext: passed on as is, so its promise completes in order.
            context.write(Self.wrapOutboundOut(plaintext), promise: promise)
        }
    }

    private func readPlaintext(context: ChannelHandlerContext) {
        var delivered = false
        readLoop: while isReadable {
            var plaintext = context.channel.allocator.buffer(capacity: Self.maximumRecordSize)
            switch connection.read(into: &plaintext, maximumBytes: Self.maximumRecordSize) {
            case .success:
                receivedApplicationData = true
                delivered = true
                context.fireChannelRead(Self.wrapInboundOut(plaintext))
            case .wantRead:
                break readLoop
            case .wantWrite:
                if writeNetworkOutput(context: context, promise: nil) {
                    context.flush()
                } else {
                    fail(context: context, error: stalled("read"))
                    return
                }
            case .closedByPeer:
                if delivered {
                    context.fireChannelReadComplete()
                }
                peerSentCloseNotify(context: context)
                return
            case .failed(let failure):
                let beforeData = isClient && !receivedApplicationData
                fail(context: context, error: failure.connectionError(beforeApplicationData: beforeData))
                return
            }
        }
        // Post-handshake messages (session tickets, key updates) may need an answer.
        if isReadable, writeNetworkOutput(context: context, promise: nil) {
            context.flush()
        }
    }

    private func peerSentCloseNotify(context: ChannelHandlerContext) {
        if case .open = state {
            connection.shutdown()
            if writeNetworkOutput(context: context, promise: nil) {
                context.flush()
            }
        }
        state = .closed
        context.close(promise: nil)
    }

    // MARK: - Helpers

    private var isClosed: Bool {
        if case .closed = state { return true }
        return false
    }

    /// Writes whatever ciphertext the session produced, without flushing; `false` if none.
    @discardableResult
    private func writeNetworkOutput(context: ChannelHandlerContext, promise: EventLoopPromise<Void>?) -> Bool {
        guard let ciphertext = connection.drainOutput(allocator: context.channel.allocator) else {
            return false
        }
        context.write(Self.wrapOutboundOut(ciphertext), promise: promise)
        return true
    }

    /// Fails the connection: alerts already queued go out, pending promises fail, the error
    /// travels down the pipeline, and the channel closes.
    private func fail(context: ChannelHandlerContext, error: TransportError) {
        if isClosed { return }
        state = .closed
        cancelTimeout()
        if writeNetworkOutput(context: context, promise: nil) {
            context.flush()
        }
        failPending(error)
        context.fireErrorCaught(error)
        context.close(promise: nil)
    }

    private func failPending(_ error: TransportError) {
        let promise = handshakePromise
        handshakePromise = nil
        promise?.fail(error)
        let writes = bufferedWrites
        bufferedWrites = []
        flushedBufferedWriteCount = 0
        for write in writes {
            write.promise?.fail(error)
        }
    }

    private func cancelTimeout() {
        scheduledTimeout?.cancel()
        scheduledTimeout = nil
    }

    private func stalled(_ operation: String) -> TransportError {
        TransportError(
            code: isHandshaking ? .tlsHandshakeFailed : .ioError,
            message: "the TLS \(operation) cannot make progress"
        )
    }
}

@available(*, unavailable)
extension OpenSSLHandler: Sendable {}
