/// A connection that carries whole messages both ways: a WebSocket, or an in-memory pair in tests.
///
/// Inbound delivery is push-based so a protocol engine can process frames where they arrive (on
/// the connection's I/O thread) and cross into Swift concurrency once per call rather than once
/// per frame. Applications that prefer a loop use ``inboundMessages()``:
///
/// ```swift
/// for try await message in transport.inboundMessages() {
///     try transport.enqueue(message)  // echo
/// }
/// ```
///
/// Outbound, ``enqueue(_:)`` never suspends (use it from an event handler) and ``send(_:)``
/// waits while the outbound buffer is above its bound (use it to apply backpressure to a
/// producer). Messages enqueued in one synchronous stretch are flushed to the peer together.
public protocol MessageTransport: AnyObject, Sendable {
    /// The current state.
    var state: TransportState { get }

    /// Starts delivering inbound events to `handler`.
    ///
    /// Call it once; events before it are buffered. `handler` is called serially, in arrival
    /// order, possibly on an I/O thread, and must not block. ``TransportEvent/closed(_:)`` is
    /// always the last event.
    func start(_ handler: @escaping @Sendable (TransportEvent) -> Void)

    /// Queues a message for sending without waiting.
    ///
    /// - Throws: ``TransportError`` when the transport is closing or closed, or when the message
    ///   is larger than the transport's message limit.
    func enqueue(_ message: TransportMessage) throws(TransportError)

    /// Sends a message, waiting while the outbound buffer is above its bound.
    ///
    /// - Throws: ``TransportError`` when the transport is closing or closed, the message is too
    ///   large, or the task is cancelled while waiting.
    func send(_ message: TransportMessage) async throws(TransportError)

    /// Closes the connection with a close handshake and returns once it is closed (or the
    /// transport's close timeout has passed). Calling it again does nothing.
    ///
    /// - Parameters:
    ///   - code: The close code to send.
    ///   - reason: The close reason, cut to 123 UTF-8 bytes on a character boundary.
    func close(code: CloseCode, reason: String) async

    /// Ends the connection at once because of `error`, without waiting for the peer's half of
    /// the close handshake (the peer may be gone), and returns once it is closed. The closure
    /// reports `error`. Calling it on a closed transport does nothing.
    ///
    /// The default closes with ``close(code:reason:)`` (code 1001, the error's message as the
    /// reason); a transport whose close handshake can wait on the peer overrides it.
    func abort(_ error: TransportError) async

    /// A stream of state changes, starting with the current state and finishing after `closed`.
    func stateUpdates() -> AsyncStream<TransportState>

    /// The task executor of the thread that delivers this transport's events, if it has one
    /// (a WebSocket's event loop; `nil` for an in-memory pair).
    ///
    /// Code run with it as its preference (`withTaskExecutorPreference(transport.executor)`)
    /// sends and receives on that thread, with no hand-off between threads per message.
    var executor: (any TaskExecutor)? { get }

    /// Runs `body` once the burst of inbound events being delivered has been handled and what
    /// it caused to be written has been flushed; at once when called outside such a burst, or
    /// from another thread.
    ///
    /// It is for work that must follow the events but need not come before the reply, such as
    /// freeing what the peer released: done here, it is off the path between a read and the
    /// write that answers it. A transport without bursts runs `body` at once (the default).
    func afterInboundBurst(_ body: @escaping @Sendable () -> Void)
}

extension MessageTransport {
    /// No executor of its own: events come from wherever the transport delivers them.
    public var executor: (any TaskExecutor)? { nil }

    /// Runs `body` at once: this transport does not tell bursts apart.
    public func afterInboundBurst(_ body: @escaping @Sendable () -> Void) {
        body()
    }

    /// Closes with code 1001 (going away) and the error's message as the reason.
    public func abort(_ error: TransportError) async {
        await close(code: .goingAway, reason: error.message)
    }

    /// Closes the connection normally (1000) without a reason.
    public func close() async {
        await close(code: .normal, reason: "")
    }

    /// Inbound messages as an asynchronous sequence.
    ///
    /// The sequence ends when the peer closes cleanly and throws the ``TransportError`` when the
    /// connection fails. It calls ``start(_:)``, so use either this or a handler, not both.
    public func inboundMessages() -> TransportInbound {
        TransportInbound(transport: self)
    }
}
