import NIOCore
@_spi(RpcImplementation) import RpcTransport
import Synchronization

/// The part of a WebSocket connection that any thread may touch: the lifecycle state, messages
/// enqueued away from the event loop, the writability the channel last reported, tasks waiting
/// in `send`, and state observers. Everything else lives on the event loop in the
/// connection handler.
final class WebSocketSharedState: Sendable {
    private struct State {
        var lifecycle: TransportState = .open
        var writable = true
        var offLoopQueue: [TransportMessage] = []
        var offLoopBytes = 0
        var drainScheduled = false
        var sendWaiters: [UInt64: CheckedContinuation<Void, any Error>] = [:]
        var nextWaiterID: UInt64 = 0
        var observers = TransportStateObservers()
    }

    private let state = Mutex(State())
    /// Whether ``State/offLoopQueue`` may hold messages: set and cleared under the lock, read
    /// without it, so that the event loop takes the lock only when another thread enqueued.
    private let offLoopPending = Atomic<Bool>(false)
    /// Bytes that may wait to be written before `send` suspends.
    let outboundBufferLimit: Int
    /// Completed with how the connection ended, once it has.
    let closed: EventLoopPromise<TransportClosure>
    /// The tasks waiting for a pong.
    let pings = WebSocketPingWaiters()

    init(outboundBufferLimit: Int, eventLoop: any EventLoop) {
        self.outboundBufferLimit = max(outboundBufferLimit, 1)
        self.closed = eventLoop.makePromise(of: TransportClosure.self)
    }

    /// The current lifecycle state.
    var lifecycle: TransportState {
        state.withLock { $0.lifecycle }
    }

    /// The error for an operation attempted in `lifecycle`, which is not open.
    static func notOpenError(_ lifecycle: TransportState) -> TransportError {
        if case .closed(let closure) = lifecycle {
            return closure.asError
        }
        return TransportError(code: .closed, message: "the connection is closing")
    }

    // MARK: Messages enqueued away from the event loop

    /// Queues a message enqueued on another thread; returns whether the caller must schedule a
    /// drain on the event loop (no drain is pending yet).
    func enqueueOffLoop(_ message: TransportMessage) throws(TransportError) -> Bool {
        try state.withLock { state throws(TransportError) -> Bool in
            guard case .open = state.lifecycle else {
                throw Self.notOpenError(state.lifecycle)
            }
            state.offLoopQueue.append(message)
            state.offLoopBytes += message.bytes.count
            offLoopPending.store(true, ordering: .releasing)
            if state.drainScheduled {
                return false
            }
            state.drainScheduled = true
            return true
        }
    }

    /// Takes the messages queued away from the event loop, in order.
    func takeOffLoopMessages() -> [TransportMessage] {
        guard offLoopPending.load(ordering: .acquiring) else { return [] }
        return state.withLock { state in
            offLoopPending.store(false, ordering: .relaxed)
            state.drainScheduled = false
            state.offLoopBytes = 0
            defer { state.offLoopQueue = [] }
            return state.offLoopQueue
        }
    }

    // MARK: Backpressure

    /// Records the channel's writability; resumes waiting senders when there is room again.
    func setWritable(_ writable: Bool) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.writable = writable
            return Self.takeWaitersIfRoom(&state, limit: outboundBufferLimit)
        }
        for waiter in waiters {
            waiter.resume()
        }
    }

    /// Resumes waiting senders if the queue drained below the limit.
    func wakeSendersIfRoom() {
        let waiters = state.withLock { state in
            Self.takeWaitersIfRoom(&state, limit: outboundBufferLimit)
        }
        for waiter in waiters {
            waiter.resume()
        }
    }

    private static func takeWaitersIfRoom(
        _ state: inout State,
        limit: Int
    ) -> [CheckedContinuation<Void, any Error>] {
        guard !state.sendWaiters.isEmpty, state.writable, state.offLoopBytes < limit else { return [] }
        defer { state.sendWaiters = [:] }
        return Array(state.sendWaiters.values)
    }

    /// Waits until the outbound buffer is below its bound, the connection is over, or the task
    /// is cancelled.
    func waitForRoom() async throws(TransportError) {
        let hasRoom = state.withLock { state in
            state.writable && state.offLoopBytes < outboundBufferLimit
        }
        if hasRoom {
            return
        }
        let id = state.withLock { state -> UInt64 in
            defer { state.nextWaiterID += 1 }
            return state.nextWaiterID
        }
        do {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    let resumeNow = state.withLock { state -> Bool in
                        let room = state.writable && state.offLoopBytes < outboundBufferLimit
                        if room || !state.lifecycle.isOpen || Task.isCancelled {
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
                let waiter = state.withLock { $0.sendWaiters.removeValue(forKey: id) }
                waiter?.resume(throwing: CancellationError())
            }
        } catch {
            throw TransportError(code: .cancelled, message: "send was cancelled", cause: error)
        }
        if Task.isCancelled {
            throw TransportError(code: .cancelled, message: "send was cancelled")
        }
    }

    // MARK: Lifecycle

    /// Moves an open connection to `closing`; returns whether it was open.
    @discardableResult
    func beginClosing() -> Bool {
        let observers = state.withLock { state -> [TransportStateObservers.Continuation]? in
            guard case .open = state.lifecycle else { return nil }
            state.lifecycle = .closing
            return state.observers.all
        }
        guard let observers else { return false }
        for observer in observers {
            observer.yield(.closing)
        }
        return true
    }

    /// Moves the connection to `closed` once; returns whether it did.
    @discardableResult
    func finish(_ closure: TransportClosure) -> Bool {
        let outcome = state.withLock {
            state -> (
                waiters: [CheckedContinuation<Void, any Error>],
                observers: [TransportStateObservers.Continuation]
            )? in
            guard !state.lifecycle.isClosed else { return nil }
            state.lifecycle = .closed(closure)
            state.offLoopQueue = []
            state.offLoopBytes = 0
            defer { state.sendWaiters = [:] }
            return (Array(state.sendWaiters.values), state.observers.removeAll())
        }
        guard let outcome else { return false }
        for waiter in outcome.waiters {
            waiter.resume()
        }
        TransportStateObservers.finish(outcome.observers, with: closure)
        closed.succeed(closure)
        return true
    }

    /// A stream of state changes, starting with the current state.
    func stateUpdates() -> AsyncStream<TransportState> {
        TransportStateObservers.makeStream { continuation in
            state.withLock { state in
                state.observers.add(continuation, unlessClosed: state.lifecycle) { [weak self] id in
                    self?.state.withLock { $0.observers.remove(id) }
                }
                return state.lifecycle
            }
        }
    }
}
