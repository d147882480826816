import RpcTransport
import Synchronization

/// The messages a connection received and has not handled yet, bounded in bytes.
///
/// The transport delivers what it reads on its I/O thread; the connection handles requests one
/// at a time (some wait for the engine). A client that sends faster than it is answered fills
/// this queue; past `maxBytes` the queue fails (``overflowed``) and `onOverflow` closes the
/// connection, instead of the server holding every request the client can send.
///
/// Every message taken in is counted in `work` (the requests in flight a graceful shutdown
/// waits for) from the moment it arrives: the reader ends the count once it has handled the
/// message, and the queue ends it for the messages it drops (``discardRemaining()``, an
/// overflow). A request read but not yet handled is in flight, so a shutdown answers it rather
/// than closing the connection under it.
final class InboundQueue: Sendable {
    private struct State {
        var messages: [TransportMessage?] = []
        var head = 0
        var bytes = 0
        var finished = false
        var overflowed = false
        var reader: CheckedContinuation<TransportMessage?, Never>?

        /// Finishes the queue and drops the messages still waiting; returns how many there were.
        mutating func finishDroppingWaiting() -> Int {
            let waiting = messages[head...].count { $0 != nil }
            finished = true
            messages = []
            head = 0
            bytes = 0
            return waiting
        }
    }

    private let maxBytes: Int
    private let work: InFlightWork
    private let onOverflow: @Sendable () -> Void
    private let state = Mutex(State())

    init(maxBytes: Int, work: InFlightWork, onOverflow: @escaping @Sendable () -> Void) {
        self.maxBytes = max(1, maxBytes)
        self.work = work
        self.onOverflow = onOverflow
    }

    /// Whether more than `maxBytes` waited.
    var overflowed: Bool { state.withLock { $0.overflowed } }

    /// A message read from the client; counted in flight until the reader has handled it.
    func push(_ message: TransportMessage) {
        var reader: CheckedContinuation<TransportMessage?, Never>?
        var overflowedNow = false
        // Counted before the reader can see it, so its end never comes first.
        work.begin()
        let dropped = state.withLock { state -> Int in
            guard !state.finished else { return 1 }
            if let waiting = state.reader {
                state.reader = nil
                reader = waiting
                return 0
            }
            state.bytes = DocumentStore.saturatingAdd(state.bytes, message.bytes.count)
            if state.bytes > maxBytes {
                state.overflowed = true
                overflowedNow = true
                return state.finishDroppingWaiting() + 1
            }
            state.messages.append(message)
            return 0
        }
        for _ in 0 ..< dropped { work.end() }
        reader?.resume(returning: message)
        if overflowedNow { onOverflow() }
    }

    /// The reader stops: the messages still waiting are dropped, and no longer counted in flight.
    func discardRemaining() {
        let dropped = state.withLock { $0.finishDroppingWaiting() }
        for _ in 0 ..< dropped { work.end() }
    }

    /// The connection ended: the reader gets what is left, then `nil`.
    func finish() {
        let reader = state.withLock { state in
            state.finished = true
            defer { state.reader = nil }
            return state.head < state.messages.count ? nil : state.reader
        }
        reader?.resume(returning: nil)
    }

    /// The next message, once there is one; `nil` once the connection ended and all was read.
    func next() async -> TransportMessage? {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> TransportMessage?? in
                while state.head < state.messages.count {
                    let index = state.head
                    state.head += 1
                    guard let message = state.messages[index] else { continue }
                    state.messages[index] = nil
                    state.bytes = max(0, state.bytes - message.bytes.count)
                    if state.head > 64, state.head * 2 > state.messages.count {
                        state.messages.removeFirst(state.head)
                        state.head = 0
                    }
                    return .some(message)
                }
                state.messages.removeAll(keepingCapacity: true)
                state.head = 0
                if state.finished { return .some(nil) }
                state.reader = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
