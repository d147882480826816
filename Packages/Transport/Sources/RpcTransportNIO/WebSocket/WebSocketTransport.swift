public import NIOCore
public import RpcTransport
import NIOWebSocket

/// One open WebSocket connection, client or server side, as a ``MessageTransport``.
///
/// Inbound frames are reassembled, checked and delivered to the ``start(_:)`` handler on the
/// connection's event loop as they arrive. ``enqueue(_:)`` writes directly when called on that
/// event loop (from the handler, say) and otherwise hands the message over in one hop; writes
/// are flushed together once per event-loop tick. ``send(_:)`` suspends only while more than
/// the outbound buffer limit is waiting to be written. ``ping()`` sends a ping frame and returns
/// on the pong; with keepalive settings the transport runs the ``KeepaliveScheduler``
/// on itself until it closes.
///
/// Make one with ``WebSocketClient/connect(to:configuration:eventLoopGroup:logger:)`` or receive
/// them from a ``TransportServer``.
public final class WebSocketTransport: PingableTransport, Sendable {
    /// The subprotocol both sides agreed on in the handshake; `nil` when none was.
    public let subprotocol: String?
    /// Whether permessage-deflate was agreed in the handshake.
    public let isCompressionEnabled: Bool
    /// The peer's address, when the channel knows it.
    public let remoteAddress: SocketAddress?
    /// The largest message this transport sends or accepts, in bytes.
    public let maxMessageSize: Int

    private let loopExecutor: EventLoopTaskExecutor
    private var eventLoop: any EventLoop { loopExecutor.eventLoop }
    private let shared: WebSocketSharedState
    private let connection: NIOLoopBound<WebSocketConnectionHandler>
    /// The keepalive loop, when the settings ask for one: it ends when the connection closes,
    /// and ``close(code:reason:)`` and ``abort(_:)`` cancel and await it before they return.
    private let keepalive = OwnedTasks<Int>()

    private init(
        channel: any Channel,
        connection: WebSocketConnectionHandler,
        subprotocol: String?,
        isCompressionEnabled: Bool,
        maxMessageSize: Int
    ) {
        self.loopExecutor = EventLoopTaskExecutor(channel.eventLoop)
        self.shared = connection.shared
        self.connection = NIOLoopBound(connection, eventLoop: channel.eventLoop)
        self.subprotocol = subprotocol
        self.isCompressionEnabled = isCompressionEnabled
        self.remoteAddress = channel.remoteAddress
        self.maxMessageSize = maxMessageSize
    }

    /// Adds the connection handler to a channel whose pipeline already decodes WebSocket frames,
    /// and wraps the channel. Call it on the channel's event loop.
    static func install(
        on channel: any Channel,
        settings: WebSocketConnectionSettings,
        subprotocol: String?,
        codec: PerMessageDeflateCodec?
    ) throws -> WebSocketTransport {
        channel.eventLoop.preconditionInEventLoop()
        let shared = WebSocketSharedState(outboundBufferLimit: settings.outboundBufferLimit, eventLoop: channel.eventLoop)
        let handler = WebSocketConnectionHandler(settings: settings, shared: shared, codec: codec)
        try channel.pipeline.syncOperations.addHandler(handler)
        if let options = channel.syncOptions {
            try? options.setOption(ChannelOptions.writeBufferWaterMark, value: settings.waterMark)
        }
        let transport = WebSocketTransport(
            channel: channel,
            connection: handler,
            subprotocol: subprotocol,
            isCompressionEnabled: codec != nil,
            maxMessageSize: settings.maxMessageSize
        )
        if let keepalive = settings.keepalive {
            transport.startKeepalive(Keepalive(interval: keepalive.interval, timeout: keepalive.timeout))
        }
        return transport
    }

    /// Runs the keepalive scheduler on this transport until it closes; an unanswered ping
    /// ends the connection with ``TransportError/Code/keepaliveTimeout``.
    private func startKeepalive(_ settings: Keepalive) {
        keepalive.spawn { [weak self] in
            guard let self else { return }
            // The abort is started, not awaited: it awaits this loop.
            await KeepaliveScheduler.run(settings, on: self) { [weak self] error in
                self?.abortOnLoop(error)
            }
        }
    }

    /// How many keepalive loops run: 1 while the keepalive settings' loop probes the
    /// connection, 0 without one or once it has ended.
    var keepaliveLoopCount: Int {
        keepalive.count
    }

    // MARK: MessageTransport

    /// The current state.
    public var state: TransportState {
        shared.lifecycle
    }

    /// Starts delivering inbound events to `handler`, on the connection's event loop; events that
    /// arrived earlier are delivered first.
    public func start(_ handler: @escaping @Sendable (TransportEvent) -> Void) {
        if eventLoop.inEventLoop {
            connection.value.install(handler)
        } else {
            let connection = self.connection
            eventLoop.execute {
                connection.value.install(handler)
            }
        }
    }

    /// Queues a message without waiting.
    ///
    /// - Throws: ``TransportError`` with code `closed` when the connection is
    ///   closing or closed, `messageTooLarge` above ``maxMessageSize``.
    public func enqueue(_ message: TransportMessage) throws(TransportError) {
        guard message.bytes.count <= maxMessageSize else {
            throw TransportError(
                code: .messageTooLarge,
                message: "message of \(message.bytes.count) bytes exceeds the limit of \(maxMessageSize)",
                closeCode: .messageTooBig
            )
        }
        if eventLoop.inEventLoop {
            try connection.value.enqueueOnLoop(message)
        } else if try shared.enqueueOffLoop(message) {
            let connection = self.connection
            eventLoop.execute {
                connection.value.drainOffLoopMessages()
            }
        }
    }

    /// Runs `body` after the current read burst, once what the burst caused to be written has
    /// been flushed; at once off the event loop or outside a burst.
    public func afterInboundBurst(_ body: @escaping @Sendable () -> Void) {
        guard eventLoop.inEventLoop else {
            body()
            return
        }
        connection.value.afterInboundBurst(body)
    }

    /// Sends a message, first waiting while more than the outbound buffer limit is unwritten.
    ///
    /// - Throws: As ``enqueue(_:)``, or with code `cancelled` when the task is cancelled while
    ///   waiting.
    public func send(_ message: TransportMessage) async throws(TransportError) {
        guard message.bytes.count <= maxMessageSize else {
            throw TransportError(
                code: .messageTooLarge,
                message: "message of \(message.bytes.count) bytes exceeds the limit of \(maxMessageSize)",
                closeCode: .messageTooBig
            )
        }
        try await shared.waitForRoom()
        try enqueue(message)
    }

    /// Closes the connection with a close handshake and returns once it is closed, or once the
    /// close timeout has passed and the connection was cut.
    public func close(code: CloseCode, reason: String) async {
        if !shared.lifecycle.isClosed {
            shared.beginClosing()
            if eventLoop.inEventLoop {
                connection.value.closeLocally(code: code, reason: reason)
            } else {
                let connection = self.connection
                eventLoop.execute {
                    connection.value.closeLocally(code: code, reason: reason)
                }
            }
        }
        _ = await waitUntilClosed()
        await keepalive.close()
    }

    /// Sends a ping frame and returns once a pong arrives.
    ///
    /// - Throws: ``TransportError`` with code `closed` when the connection is or
    ///   becomes closed first, `cancelled` when the task is cancelled.
    public func ping() async throws(TransportError) {
        let pings = shared.pings
        let id = pings.nextID()
        let connection = self.connection
        let eventLoop = self.eventLoop
        do {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    guard pings.add(id, continuation) else { return }
                    eventLoop.execute {
                        connection.value.sendPing()
                    }
                }
            } onCancel: {
                pings.cancel(id)
            }
        } catch let error as TransportError {
            throw error
        } catch {
            throw TransportError(code: .cancelled, message: "ping was cancelled", cause: error)
        }
    }

    /// Ends the connection at once with `error`, without waiting for the peer's close frame,
    /// and returns once it is closed.
    public func abort(_ error: TransportError) async {
        abortOnLoop(error)
        _ = await waitUntilClosed()
        await keepalive.close()
    }

    /// A stream of state changes, starting with the current state and finishing after `closed`.
    public func stateUpdates() -> AsyncStream<TransportState> {
        shared.stateUpdates()
    }

    /// The connection's event loop as a task executor: inbound events are delivered there, and
    /// messages enqueued there are written without a hop.
    public var executor: (any TaskExecutor)? {
        loopExecutor
    }

    /// Starts the close handshake without waiting for it to finish.
    func closeOnLoop(code: CloseCode, reason: String) {
        guard !shared.lifecycle.isClosed else { return }
        shared.beginClosing()
        let connection = self.connection
        eventLoop.execute {
            connection.value.closeLocally(code: code, reason: reason)
        }
    }

    /// Ends the connection at once with `error` without waiting for it to close.
    func abortOnLoop(_ error: TransportError) {
        guard !shared.lifecycle.isClosed else { return }
        shared.beginClosing()
        let connection = self.connection
        eventLoop.execute {
            connection.value.abortLocally(error)
        }
    }

    /// Completed with how the connection ended.
    var closedFuture: EventLoopFuture<TransportClosure> {
        shared.closed.futureResult
    }

    /// Waits until the connection is over and returns how it ended.
    public func waitUntilClosed() async -> TransportClosure {
        do {
            return try await shared.closed.futureResult.get()
        } catch {
            return TransportClosure(
                code: .abnormal,
                initiatedLocally: false,
                error: TransportError(code: .closed, message: "connection lost", closeCode: .abnormal, cause: error)
            )
        }
    }
}
