@_spi(RpcImplementation) public import RpcTransport
import Dispatch
import Synchronization

/// One end of a connected pair of in-process message transports, for tests of the layers above.
///
/// Each end delivers to its peer on a serial queue of its own, so a handler that sends from
/// inside its callback never re-enters the sender, just as with a socket. Faults can be
/// injected per direction: drop messages, delay them, or cut the connection. Each end also
/// answers ``ping()`` like a WebSocket peer (``setAnswersPings(_:)`` makes it go silent) and
/// counts the pings it received and answered, so a test can see a keepalive at work.
///
/// ```swift
/// let (client, server) = InMemoryTransport.makePair()
/// server.start { event in
///     if case .message(let message) = event { try? server.enqueue(message) }
/// }
/// try client.enqueue(.text("ping"))
/// ```
public final class InMemoryTransport: PingableTransport, Sendable {
    /// Limits of an in-memory pair.
    public struct Configuration: Sendable, Hashable {
        /// The largest message either end accepts, in bytes. Default 32 MiB.
        public var maxMessageSize: Int
        /// How many undelivered messages an end may have in flight before ``send(_:)`` waits.
        /// Default 1024.
        public var outboundBufferLimit: Int

        /// Creates a configuration.
        public init(maxMessageSize: Int = 32 * 1024 * 1024, outboundBufferLimit: Int = 1024) {
            self.maxMessageSize = maxMessageSize
            self.outboundBufferLimit = outboundBufferLimit
        }

        /// The defaults.
        public static var `default`: Configuration { Configuration() }
    }

    /// A fault applied to the messages this end sends.
    public enum Fault: Sendable {
        /// Drop the next `count` messages silently.
        case dropNext(Int)
        /// Drop every message for which the predicate is true.
        case drop(@Sendable (TransportMessage) -> Bool)
        /// Deliver each message after a delay.
        case delay(Duration)
        /// After `count` more messages are delivered, cut the connection (both ends see 1006).
        case disconnectAfter(Int)
    }

    private struct State {
        var handler: (@Sendable (TransportEvent) -> Void)?
        var pending: [TransportEvent] = []
        var lifecycle: TransportState = .open
        var inFlight = 0
        var dropNext = 0
        var dropPredicates: [@Sendable (TransportMessage) -> Bool] = []
        var delay: Duration?
        var disconnectAfter: Int?
        var sendWaiters: [UInt64: CheckedContinuation<Void, any Error>] = [:]
        var nextWaiterID: UInt64 = 0
        var observers = TransportStateObservers()
        var pingWaiters: [UInt64: CheckedContinuation<Void, any Error>] = [:]
        var nextPingID: UInt64 = 0
        var answersPings = true
        var pingsReceived = 0
        var pongsSent = 0
    }

    /// The limits this end applies.
    public let configuration: Configuration
    private let queue: DispatchQueue
    private let storage: Mutex<State>
    private let peerBox: Mutex<InMemoryTransport?>

    private init(name: String, configuration: Configuration) {
        self.configuration = configuration
        self.queue = DispatchQueue(label: "in-memory-transport.\(name)")
        self.storage = Mutex(State())
        self.peerBox = Mutex(nil)
    }

    /// Creates two connected ends, both open.
    ///
    /// - Parameter configuration: Limits applied by both ends.
    /// - Returns: The two ends; what one enqueues, the other receives.
    public static func makePair(configuration: Configuration = .default) -> (InMemoryTransport, InMemoryTransport) {
        let first = InMemoryTransport(name: "a", configuration: configuration)
        let second = InMemoryTransport(name: "b", configuration: configuration)
        first.peerBox.withLock { $0 = second }
        second.peerBox.withLock { $0 = first }
        return (first, second)
    }

    private var peer: InMemoryTransport? { peerBox.withLock { $0 } }

    // MARK: MessageTransport

    /// The current state.
    public var state: TransportState { self.storage.withLock { $0.lifecycle } }

    /// Starts delivering inbound events to `handler`, on this end's serial queue; events that
    /// arrived earlier are delivered first.
    public func start(_ handler: @escaping @Sendable (TransportEvent) -> Void) {
        // Installed on the delivery queue so that the backlog goes out before anything newer.
        queue.async { [self] in
            let backlog = self.storage.withLock { state -> [TransportEvent] in
                // A closed end delivers nothing more: it keeps no handler (which would hold
                // whoever installed it).
                if !state.lifecycle.isClosed { state.handler = handler }
                defer { state.pending = [] }
                return state.pending
            }
            for event in backlog {
                handler(event)
            }
        }
    }

    /// Queues a message for the peer without waiting.
    ///
    /// - Throws: `TransportError` with code `closed` after a close, or
    ///   `messageTooLarge` above ``Configuration/maxMessageSize``.
    public func enqueue(_ message: TransportMessage) throws(TransportError) {
        guard message.bytes.count <= configuration.maxMessageSize else {
            throw TransportError(
                code: .messageTooLarge,
                message: "message of \(message.bytes.count) bytes exceeds the limit of \(configuration.maxMessageSize)",
                closeCode: .messageTooBig
            )
        }
        enum Plan {
            case drop
            case deliver(Duration?, cutAfter: Bool)
        }
        let plan = try self.storage.withLock { state throws(TransportError) -> Plan in
            guard case .open = state.lifecycle else {
                throw Self.closedError(state.lifecycle)
            }
            if state.dropNext > 0 {
                state.dropNext -= 1
                return .drop
            }
            if state.dropPredicates.contains(where: { $0(message) }) {
                return .drop
            }
            var cut = false
            if let remaining = state.disconnectAfter {
                cut = remaining <= 1
                state.disconnectAfter = cut ? nil : remaining - 1
            }
            state.inFlight += 1
            return .deliver(state.delay, cutAfter: cut)
        }
        guard case .deliver(let delay, let cutAfter) = plan, let peer else { return }
        let deliver: @Sendable () -> Void = { [self] in
            peer.receive(.message(message))
            self.delivered()
            if cutAfter {
                self.disconnect()
            }
        }
        // Delivered on the receiving end's queue, which serialises all of its events.
        if let delay, delay > .zero {
            peer.queue.asyncAfter(deadline: .now() + Self.dispatchInterval(delay), execute: deliver)
        } else {
            peer.queue.async(execute: deliver)
        }
    }

    /// Sends a message, waiting while ``Configuration/outboundBufferLimit`` messages are undelivered.
    ///
    /// - Throws: `TransportError` as ``enqueue(_:)`` does, or `cancelled`.
    public func send(_ message: TransportMessage) async throws(TransportError) {
        do {
            try await waitForRoom()
        } catch let error as TransportError {
            throw error
        } catch {
            throw TransportError(code: .cancelled, message: "send was cancelled", cause: error)
        }
        try enqueue(message)
    }

    /// Closes both ends with a close handshake: this end at once, the peer after the messages
    /// already sent to it, with the same code and reason.
    public func close(code: CloseCode, reason: String) async {
        let closure = TransportClosure(code: code, reason: reason, initiatedLocally: true)
        let peer = self.peer
        guard finish(closure), let peer else { return }
        // The close frame travels behind the messages already sent, as on a socket.
        peer.queue.async {
            peer.finish(TransportClosure(code: code, reason: reason, initiatedLocally: false))
        }
    }

    /// Ends this end at once with `error` (no close handshake); the peer sees the connection
    /// drop (1006), after the messages already sent to it.
    public func abort(_ error: TransportError) async {
        let closure = TransportClosure(code: error.closeCode ?? .abnormal, reason: "", initiatedLocally: true, error: error)
        let peer = self.peer
        guard finish(closure), let peer else { return }
        let lost = TransportError(code: .closed, message: "connection lost", closeCode: .abnormal)
        peer.queue.async {
            peer.finish(TransportClosure(code: .abnormal, reason: "", initiatedLocally: false, error: lost))
        }
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

    // MARK: Ping

    /// Sends a ping to the peer end and returns once its pong arrives. Pings travel on their
    /// own, ahead of delayed messages and untouched by message faults; the peer answers unless
    /// ``setAnswersPings(_:)`` turned that off.
    ///
    /// - Throws: `TransportError` with code `closed` when this end is
    ///   or becomes closed before the pong, `cancelled` when the task is
    ///   cancelled.
    public func ping() async throws(TransportError) {
        let id = storage.withLock { state -> UInt64 in
            defer { state.nextPingID += 1 }
            return state.nextPingID
        }
        do {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    let refusal = storage.withLock { state -> (any Error)? in
                        if Task.isCancelled { return TransportError(code: .cancelled, message: "ping was cancelled") }
                        guard case .open = state.lifecycle else { return Self.closedError(state.lifecycle) }
                        state.pingWaiters[id] = continuation
                        return nil
                    }
                    if let refusal {
                        continuation.resume(throwing: refusal)
                        return
                    }
                    guard let peer else { return }
                    peer.queue.async { [self] in peer.receivePing(from: self) }
                }
            } onCancel: {
                let waiter = storage.withLock { $0.pingWaiters.removeValue(forKey: id) }
                waiter?.resume(throwing: TransportError(code: .cancelled, message: "ping was cancelled"))
            }
        } catch let error as TransportError {
            throw error
        } catch {
            throw TransportError(code: .cancelled, message: "ping was cancelled", cause: error)
        }
    }

    /// Whether this end answers the peer's pings (default `true`); turn it off to play a peer
    /// that has gone silent.
    public func setAnswersPings(_ answers: Bool) {
        storage.withLock { $0.answersPings = answers }
    }

    /// How many pings from the peer this end has received.
    public var pingsReceived: Int {
        storage.withLock { $0.pingsReceived }
    }

    /// How many of the peer's pings this end has answered with a pong.
    public var pongsSent: Int {
        storage.withLock { $0.pongsSent }
    }

    private func receivePing(from sender: InMemoryTransport) {
        let answer = storage.withLock { state -> Bool in
            guard case .open = state.lifecycle else { return false }
            state.pingsReceived += 1
            guard state.answersPings else { return false }
            state.pongsSent += 1
            return true
        }
        if answer {
            sender.queue.async { sender.receivePong() }
        }
    }

    private func receivePong() {
        let waiters = storage.withLock { state -> [CheckedContinuation<Void, any Error>] in
            defer { state.pingWaiters = [:] }
            return Array(state.pingWaiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    // MARK: Fault injection

    /// Applies a fault to the messages this end sends from now on.
    public func inject(_ fault: Fault) {
        self.storage.withLock { state in
            switch fault {
            case .dropNext(let count): state.dropNext += max(0, count)
            case .drop(let predicate): state.dropPredicates.append(predicate)
            case .delay(let duration): state.delay = duration
            case .disconnectAfter(let count): state.disconnectAfter = max(1, count)
            }
        }
    }

    /// Removes every injected fault from this end.
    public func clearFaults() {
        self.storage.withLock { state in
            state.dropNext = 0
            state.dropPredicates = []
            state.delay = nil
            state.disconnectAfter = nil
        }
    }

    /// Cuts the connection without a close handshake: both ends close with 1006 and a
    /// `closed` error, as when a socket drops.
    public func disconnect() {
        let error = TransportError(code: .closed, message: "connection lost", closeCode: .abnormal)
        let closure = TransportClosure(code: .abnormal, reason: "", initiatedLocally: false, error: error)
        let peer = self.peer
        finish(closure)
        peer?.finish(closure)
    }

    // MARK: Internals

    private func receive(_ event: TransportEvent) {
        let handler = self.storage.withLock { state -> (@Sendable (TransportEvent) -> Void)? in
            if state.lifecycle.isClosed {
                return nil
            }
            if state.handler == nil {
                state.pending.append(event)
            }
            return state.handler
        }
        handler?(event)
    }

    private func delivered() {
        let waiters = self.storage.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.inFlight -= 1
            guard state.inFlight < configuration.outboundBufferLimit else { return [] }
            defer { state.sendWaiters = [:] }
            return Array(state.sendWaiters.values)
        }
        for waiter in waiters {
            waiter.resume()
        }
    }

    private func waitForRoom() async throws {
        let id = self.storage.withLock { state -> UInt64 in
            defer { state.nextWaiterID += 1 }
            return state.nextWaiterID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow = self.storage.withLock { state -> Bool in
                    if state.inFlight < configuration.outboundBufferLimit || state.lifecycle.isClosed || Task.isCancelled {
                        return true
                    }
                    state.sendWaiters[id] = continuation
                    return false
                }
                if resumeNow {
                    continuation.resume()
                }
            }
        } onCancel: {
            let waiter = self.storage.withLock { $0.sendWaiters.removeValue(forKey: id) }
            waiter?.resume(throwing: TransportError(code: .cancelled, message: "send was cancelled"))
        }
        try Task.checkCancellation()
    }

    /// Moves this end to `closed` once; returns whether it did.
    ///
    /// A closed end lets go of its handler and of its peer, so that neither a protocol engine
    /// holding the transport (whose handler holds the engine) nor the pair (each end holding the
    /// other) stays alive in a cycle once both ends are closed.
    @discardableResult
    private func finish(_ closure: TransportClosure) -> Bool {
        let outcome = self.storage.withLock {
            state -> (
                handler: (@Sendable (TransportEvent) -> Void)?, waiters: [CheckedContinuation<Void, any Error>],
                pings: [CheckedContinuation<Void, any Error>], observers: [TransportStateObservers.Continuation]
            )? in
            guard !state.lifecycle.isClosed else { return nil }
            state.lifecycle = .closed(closure)
            if state.handler == nil {
                state.pending.append(.closed(closure))
            }
            defer {
                state.handler = nil
                state.sendWaiters = [:]
                state.pingWaiters = [:]
            }
            return (state.handler, Array(state.sendWaiters.values), Array(state.pingWaiters.values), state.observers.removeAll())
        }
        guard let outcome else { return false }
        peerBox.withLock { $0 = nil }
        for waiter in outcome.waiters {
            waiter.resume()
        }
        for waiter in outcome.pings {
            waiter.resume(throwing: closure.asError)
        }
        TransportStateObservers.finish(outcome.observers, with: closure)
        if let handler = outcome.handler {
            queue.async { handler(.closed(closure)) }
        }
        return true
    }

    private static func closedError(_ lifecycle: TransportState) -> TransportError {
        if case .closed(let closure) = lifecycle {
            return closure.asError
        }
        return TransportError(code: .closed, message: "connection is closing")
    }

    private static func dispatchInterval(_ duration: Duration) -> DispatchTimeInterval {
        let (seconds, attoseconds) = duration.components
        let nanoseconds = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !nanoseconds.overflow else { return .never }
        return .nanoseconds(Int(clamping: nanoseconds.partialValue + attoseconds / 1_000_000_000))
    }
}
