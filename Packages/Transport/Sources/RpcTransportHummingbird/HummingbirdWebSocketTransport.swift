@_spi(RpcImplementation) public import RpcTransport
public import HummingbirdWebSocket
import NIOCore
import NIOWebSocket
import Synchronization

/// A ``RpcTransport/MessageTransport`` over a WebSocket that Hummingbird accepted: what a
/// route's `onUpgrade` handler receives (its inbound stream and outbound writer) carries the
/// protocol sessions of this repository like any other connection.
///
/// Run one with ``withTransport(inbound:outbound:configuration:isolation:_:)`` inside the
/// handler; it stays open while the closure runs:
///
/// ```swift
/// router.ws("/echo") { inbound, outbound, _ in
///     await HummingbirdWebSocketTransport.withTransport(inbound: inbound, outbound: outbound) { transport in
///         for try await message in transport.inboundMessages() { try transport.enqueue(message) }
///     }
/// }
/// ```
///
/// Text and binary messages arrive whole (fragments joined, at most
/// ``Configuration/maxMessageSize`` bytes; a larger one closes the connection with 1009) and
/// leave fragmented at Hummingbird's `maxFrameSize`. Hummingbird answers pings, sends its
/// own (`autoPing`) and does not tell the peer's close code: a close the peer starts ends this
/// transport cleanly without one.
public final class HummingbirdWebSocketTransport: MessageTransport, Sendable {
    /// The limits of one connection.
    public struct Configuration: Sendable, Hashable {
        /// The largest message accepted from the peer or given to send, in bytes. Default 32 MiB.
        public var maxMessageSize: Int
        /// How many bytes may wait to be written before ``send(_:)`` suspends. Default 8 MiB.
        public var outboundBufferLimit: Int
        /// The bytes that may wait for a peer that does not read; past them the connection is
        /// aborted with ``RpcTransport/TransportError/Code/peerNotReading``. Default 64 MiB.
        public var maxPendingOutboundBytes: Int
        /// How long ``close(code:reason:)`` waits for the peer's half of the close handshake.
        /// Default 5 seconds.
        public var closeTimeout: Duration

        /// Creates a configuration.
        public init(
            maxMessageSize: Int = 32 * 1024 * 1024,
            outboundBufferLimit: Int = 8 * 1024 * 1024,
            maxPendingOutboundBytes: Int = 64 * 1024 * 1024,
            closeTimeout: Duration = .seconds(5)
        ) {
            self.maxMessageSize = maxMessageSize
            self.outboundBufferLimit = outboundBufferLimit
            self.maxPendingOutboundBytes = maxPendingOutboundBytes
            self.closeTimeout = closeTimeout
        }
    }

    /// What the writer sends next.
    private enum Outgoing {
        case message(TransportMessage)
        case close(CloseCode, String)
    }

    private struct State {
        var lifecycle: TransportState = .open
        var handler: (@Sendable (TransportEvent) -> Void)?
        /// Events not yet handed to the handler, in order.
        var pending: [TransportEvent] = []
        /// Whether some thread is handing events to the handler; only it does, so the handler
        /// is called serially and `closed` comes last.
        var delivering = false
        var outgoing: [Outgoing] = []
        var outgoingHead = 0
        var pendingBytes = 0
        /// The close this side asked for, once it has.
        var localClose: (code: CloseCode, reason: String)?
        var writerWaiter: CheckedContinuation<Void, Never>?
        var sendWaiters: [UInt64: CheckedContinuation<Void, any Error>] = [:]
        var nextWaiter: UInt64 = 0
        var observers = TransportStateObservers()
    }

    /// The limits this connection applies.
    public let configuration: Configuration
    private let storage = Mutex(State())

    private init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// Runs `body` with a transport over the WebSocket Hummingbird handed to a route's
    /// `onUpgrade` handler, and returns once `body` has returned and the connection is closed
    /// (1000 if `body` left it open, waiting at most ``Configuration/closeTimeout`` for the
    /// peer). Reading and writing run in tasks of this call, so none outlives it.
    ///
    /// - Parameters:
    ///   - inbound: The handler's inbound stream; read by the transport only.
    ///   - outbound: The handler's outbound writer; written by the transport only.
    ///   - configuration: The connection's limits.
    ///   - body: Serves the connection (a protocol server's `serve`).
    /// - Returns: What `body` returns.
    public static func withTransport<Value: Sendable>(
        inbound: WebSocketInboundStream,
        outbound: WebSocketOutboundWriter,
        configuration: Configuration = Configuration(),
        isolation: isolated (any Actor)? = #isolation,
        _ body: (HummingbirdWebSocketTransport) async -> Value
    ) async -> Value {
        let transport = HummingbirdWebSocketTransport(configuration: configuration)
        return await withTaskGroup(of: Void.self, returning: Value.self, isolation: isolation) { group in
            group.addTask { await transport.read(inbound) }
            group.addTask { await transport.write(outbound) }
            let value = await body(transport)
            await transport.close(code: .normal, reason: "")
            // Past the close timeout: the reader may still wait on a silent peer.
            group.cancelAll()
            transport.finish(TransportClosure(code: .normal, reason: "", initiatedLocally: true))
            return value
        }
    }

    // MARK: MessageTransport

    /// The current state.
    public var state: TransportState {
        storage.withLock { $0.lifecycle }
    }

    /// Starts delivering inbound events to `handler`; events that arrived earlier come first.
    public func start(_ handler: @escaping @Sendable (TransportEvent) -> Void) {
        let run = storage.withLock { state -> Bool in
            state.handler = handler
            guard !state.delivering, !state.pending.isEmpty else { return false }
            state.delivering = true
            return true
        }
        if run { drain() }
    }

    /// Queues a message for sending without waiting.
    ///
    /// - Throws: ``RpcTransport/TransportError`` with code `closed` once the transport is
    ///   closing, `messageTooLarge` above ``Configuration/maxMessageSize``.
    public func enqueue(_ message: TransportMessage) throws(TransportError) {
        guard message.bytes.count <= configuration.maxMessageSize else {
            throw TransportError(
                code: .messageTooLarge,
                message: "message of \(message.bytes.count) bytes exceeds the limit of \(configuration.maxMessageSize)",
                closeCode: .messageTooBig)
        }
        let outcome = try storage.withLock { state throws(TransportError) -> (waiter: CheckedContinuation<Void, Never>?, overflow: Bool) in
            guard case .open = state.lifecycle else { throw Self.closedError(state.lifecycle) }
            state.outgoing.append(.message(message))
            state.pendingBytes += message.bytes.count
            defer { state.writerWaiter = nil }
            return (state.writerWaiter, state.pendingBytes > configuration.maxPendingOutboundBytes)
        }
        outcome.waiter?.resume()
        if outcome.overflow {
            let error = TransportError(
                code: .peerNotReading,
                message: "the peer does not read: over \(configuration.maxPendingOutboundBytes) bytes wait (maxPendingOutboundBytes)",
                closeCode: .policyViolation)
            fail(error, sendingClose: true)
            throw error
        }
    }

    /// Sends a message, waiting while more than ``Configuration/outboundBufferLimit`` bytes
    /// wait to be written.
    ///
    /// - Throws: ``RpcTransport/TransportError`` as ``enqueue(_:)`` does, or `cancelled`.
    public func send(_ message: TransportMessage) async throws(TransportError) {
        let id = storage.withLock { state -> UInt64 in
            defer { state.nextWaiter &+= 1 }
            return state.nextWaiter
        }
        do {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    let now = storage.withLock { state -> Bool in
                        if state.pendingBytes < configuration.outboundBufferLimit || state.lifecycle.isClosed || Task.isCancelled {
                            return true
                        }
                        state.sendWaiters[id] = continuation
                        return false
                    }
                    if now { continuation.resume() }
                }
            } onCancel: {
                let waiter = storage.withLock { $0.sendWaiters.removeValue(forKey: id) }
                waiter?.resume(throwing: CancellationError())
            }
            try Task.checkCancellation()
        } catch {
            throw TransportError(code: .cancelled, message: "send was cancelled", cause: error)
        }
        try enqueue(message)
    }

    /// Closes the connection with a close handshake, after the messages already queued, and
    /// returns once the peer has answered (or ``Configuration/closeTimeout`` has passed).
    public func close(code: CloseCode, reason: String) async {
        let waiter = storage.withLock { state -> (CheckedContinuation<Void, Never>?, [TransportStateObservers.Continuation])? in
            guard case .open = state.lifecycle else { return nil }
            state.lifecycle = .closing
            state.localClose = (code, reason)
            state.outgoing.append(.close(code, reason))
            defer { state.writerWaiter = nil }
            return (state.writerWaiter, state.observers.all)
        }
        if let (writer, observers) = waiter {
            writer?.resume()
            for observer in observers { observer.yield(.closing) }
        }
        let timeout = configuration.closeTimeout
        _ = try? await Deadline.race(timeout) { [self] in
            for await state in stateUpdates() where state.isClosed { return }
        }
        finish(TransportClosure(code: code, reason: reason, initiatedLocally: true))
    }

    /// Ends the connection at once because of `error`: the close frame is sent if it can be,
    /// the peer's answer is not waited for.
    public func abort(_ error: TransportError) async {
        fail(error, sendingClose: true)
    }

    /// A stream of state changes, starting with the current state.
    public func stateUpdates() -> AsyncStream<TransportState> {
        TransportStateObservers.makeStream { continuation in
            storage.withLock { state in
                state.observers.add(continuation, unlessClosed: state.lifecycle) { [weak self] id in
                    self?.storage.withLock { $0.observers.remove(id) }
                }
                return state.lifecycle
            }
        }
    }

    // MARK: Reading and writing

    /// Delivers the peer's messages until the WebSocket ends.
    private func read(_ inbound: WebSocketInboundStream) async {
        var iterator = inbound.makeAsyncIterator()
        do {
            while let message = try await iterator.nextMessage(maxSize: configuration.maxMessageSize) {
                let received: TransportMessage
                switch message {
                case .text(let text):
                    received = .text(text)
                case .binary(let buffer):
                    received = .binary(Array(buffer.readableBytesView))
                }
                guard received.bytes.count <= configuration.maxMessageSize else {
                    let error = TransportError(
                        code: .messageTooLarge,
                        message: "a message of \(received.bytes.count) bytes exceeds the limit of \(configuration.maxMessageSize)",
                        closeCode: .messageTooBig)
                    fail(error, sendingClose: true)
                    return
                }
                deliver(.message(received))
            }
            // The stream ends after the peer's close frame: the answer to ours, or its own.
            let local = storage.withLock { $0.localClose }
            finish(
                local.map { TransportClosure(code: $0.code, reason: $0.reason, initiatedLocally: true) }
                    ?? TransportClosure(code: nil, reason: "", initiatedLocally: false))
        } catch {
            fail(
                TransportError(code: .closed, message: "the WebSocket failed: \(error)", closeCode: .abnormal, cause: error),
                sendingClose: false)
        }
    }

    /// Writes what is queued, in order, until the close frame is written or the transport is
    /// closed.
    private func write(_ outbound: WebSocketOutboundWriter) async {
        while let item = await nextOutgoing() {
            do {
                switch item {
                case .message(let message):
                    if message.kind == .text {
                        try await outbound.writeTextMessage(String(decoding: message.bytes, as: UTF8.self))
                    } else {
                        try await outbound.writeBinaryMessage(ByteBuffer(bytes: message.bytes))
                    }
                    written(message.bytes.count)
                case .close(let code, let reason):
                    let sent = code.isSendable ? code : .normal
                    try await outbound.close(WebSocketErrorCode(codeNumber: Int(sent.rawValue)), reason: Self.cut(reason))
                    return
                }
            } catch {
                fail(
                    TransportError(code: .closed, message: "the WebSocket could not be written: \(error)", closeCode: .abnormal, cause: error),
                    sendingClose: false)
                return
            }
        }
    }

    /// The next item to write; `nil` once the transport is closed and nothing is left.
    private func nextOutgoing() async -> Outgoing? {
        while true {
            enum Step {
                case item(Outgoing)
                case done
                case wait
            }
            let step = storage.withLock { state -> Step in
                if state.outgoingHead < state.outgoing.count {
                    let item = state.outgoing[state.outgoingHead]
                    state.outgoingHead += 1
                    if state.outgoingHead == state.outgoing.count {
                        state.outgoing.removeAll(keepingCapacity: true)
                        state.outgoingHead = 0
                    }
                    return .item(item)
                }
                return state.lifecycle.isClosed || Task.isCancelled ? .done : .wait
            }
            switch step {
            case .item(let item): return item
            case .done: return nil
            case .wait:
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let now = storage.withLock { state -> Bool in
                        if state.outgoingHead < state.outgoing.count || state.lifecycle.isClosed || Task.isCancelled {
                            return true
                        }
                        state.writerWaiter = continuation
                        return false
                    }
                    if now { continuation.resume() }
                }
            }
        }
    }

    private func written(_ count: Int) {
        let waiters = storage.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.pendingBytes -= count
            guard state.pendingBytes < configuration.outboundBufferLimit else { return [] }
            defer { state.sendWaiters = [:] }
            return Array(state.sendWaiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    // MARK: Events and the end

    private func deliver(_ event: TransportEvent) {
        let run = storage.withLock { state -> Bool in
            guard !state.lifecycle.isClosed else { return false }
            state.pending.append(event)
            guard state.handler != nil, !state.delivering else { return false }
            state.delivering = true
            return true
        }
        if run { drain() }
    }

    /// Hands the pending events to the handler until none is left; run by one thread at a time
    /// (the one that set `delivering`). Events that arrive meanwhile, from the handler itself
    /// included, are handed over by the same loop.
    private func drain() {
        while true {
            let next = storage.withLock { state -> (events: [TransportEvent], handler: @Sendable (TransportEvent) -> Void)? in
                guard let handler = state.handler, !state.pending.isEmpty else {
                    state.delivering = false
                    return nil
                }
                defer { state.pending = [] }
                return (state.pending, handler)
            }
            guard let next else { return }
            for event in next.events {
                next.handler(event)
                if case .closed = event {
                    // The last event: let go of the handler and what it holds.
                    storage.withLock { state in
                        state.handler = nil
                        state.pending = []
                    }
                }
            }
        }
    }

    /// Ends the connection with `error`, queuing the close frame first when `sendingClose`.
    private func fail(_ error: TransportError, sendingClose: Bool) {
        let writer = storage.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.lifecycle.isClosed else { return nil }
            if sendingClose, state.localClose == nil {
                state.localClose = (error.closeCode ?? .internalError, error.message)
                // Ahead of whatever waits: the peer is not to get more.
                state.outgoing.removeAll()
                state.outgoingHead = 0
                state.outgoing.append(.close(error.closeCode ?? .internalError, error.message))
            }
            defer { state.writerWaiter = nil }
            return state.writerWaiter
        }
        writer?.resume()
        finish(TransportClosure(code: error.closeCode ?? .abnormal, reason: "", initiatedLocally: true, error: error))
    }

    /// Moves to `closed` once: the handler gets its last event, waiters wake, observers finish.
    /// Queued items the writer has not taken are dropped, except a close frame.
    fileprivate func finish(_ closure: TransportClosure) {
        let outcome = storage.withLock {
            state -> (
                run: Bool, waiters: [CheckedContinuation<Void, any Error>],
                writer: CheckedContinuation<Void, Never>?, observers: [TransportStateObservers.Continuation]
            )? in
            guard !state.lifecycle.isClosed else { return nil }
            state.lifecycle = .closed(closure)
            let remaining = state.outgoing[state.outgoingHead...].filter {
                if case .close = $0 { return true }
                return false
            }
            state.outgoing = Array(remaining)
            state.outgoingHead = 0
            state.pending.append(.closed(closure))
            let run = state.handler != nil && !state.delivering
            if run { state.delivering = true }
            defer {
                state.sendWaiters = [:]
                state.writerWaiter = nil
            }
            return (run, Array(state.sendWaiters.values), state.writerWaiter, state.observers.removeAll())
        }
        guard let outcome else { return }
        outcome.writer?.resume()
        for waiter in outcome.waiters { waiter.resume() }
        TransportStateObservers.finish(outcome.observers, with: closure)
        if outcome.run { drain() }
    }

    private static func closedError(_ lifecycle: TransportState) -> TransportError {
        if case .closed(let closure) = lifecycle { return closure.asError }
        return TransportError(code: .closed, message: "connection is closing")
    }

    /// A close reason cut to 123 UTF-8 bytes on a character boundary.
    private static func cut(_ reason: String) -> String {
        var result = ""
        var count = 0
        for character in reason {
            count += character.utf8.count
            guard count <= 123 else { break }
            result.append(character)
        }
        return result
    }
}
