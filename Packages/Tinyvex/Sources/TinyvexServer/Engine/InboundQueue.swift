import RpcTransport
import Synchronization

/// The messages a connection received and has not handled yet, bounded in bytes.
///
/// The transport delivers what it reads on its I/O thread; the connection handles requests one
/// at a time (some wait for the engine). A client that sends faster than it is answered fills
/// this queue; past `maxBytes` the queue fails (``overflowed``) and `onOverflow` closes the
/// connection, instead of the server holding every request the client can send.
final class InboundQueue: Sendable {
    private struct State {
        var messages: [TransportMessage?] = []
        var head = 0
        var bytes = 0
        var finished = false
        var overflowed = false
        var reader: CheckedContinuation<TransportMessage?, Never>?
    }

    private let maxBytes: Int
    private let onOverflow: @Sendable () -> Void
    private let state = Mutex(State())

    init(maxBytes: Int, onOverflow: @escaping @Sendable () -> Void) {
        self.maxBytes = max(1, maxBytes)
        self.onOverflow = onOverflow
    }

    /// Whether more than `maxBytes` waited.
    var overflowed: Bool { state.withLock { $0.overflowed } }

    /// A message read from the client.
    func push(_ message: TransportMessage) {
        var reader: CheckedContinuation<TransportMessage?, Never>?
        var overflowedNow = false
        state.withLock { state in
            guard !state.finished else { return }
            if let waiting = state.reader {
                state.reader = nil
                reader = waiting
                return
            }
            state.bytes = DocumentStore.saturatingAdd(state.bytes, message.bytes.count)
            if state.bytes > maxBytes {
                state.overflowed = true
                state.finished = true
                state.messages = []
                state.head = 0
                state.bytes = 0
                overflowedNow = true
                return
            }
            state.messages.append(message)
        }
        reader?.resume(returning: message)
        if overflowedNow { onOverflow() }
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
