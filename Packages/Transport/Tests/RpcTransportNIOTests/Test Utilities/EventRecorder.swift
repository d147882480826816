import RpcTransport
import Synchronization

/// Records what a transport delivers, for tests to wait on with bounded, cancellable waits.
final class EventRecorder: Sendable {
    private struct State {
        var messages: [TransportMessage] = []
        var consumed = 0
        var closure: TransportClosure?
    }

    private let state = Mutex(State())

    /// Starts recording the events of `transport`.
    init(_ transport: some MessageTransport) {
        transport.start { [self] event in
            record(event)
        }
    }

    private func record(_ event: TransportEvent) {
        state.withLock { state in
            switch event {
            case .message(let message):
                state.messages.append(message)
            case .closed(let closure):
                state.closure = closure
            }
        }
    }

    /// Every message received so far.
    var messages: [TransportMessage] {
        state.withLock { $0.messages }
    }

    /// How the connection ended, once it has.
    var closure: TransportClosure? {
        state.withLock { $0.closure }
    }

    /// The next message not yet returned; fails when the connection closes first or time runs out.
    func nextMessage(within limit: Duration = .seconds(10)) async throws -> TransportMessage {
        var message: TransportMessage?
        try await waitUntil("a message", within: limit) {
            try state.withLock { state in
                if state.consumed < state.messages.count {
                    message = state.messages[state.consumed]
                    state.consumed += 1
                    return true
                }
                if let closure = state.closure {
                    throw closure.asError
                }
                return false
            }
        }
        guard let message else { throw TimeLimitExceeded(description: "no message") }
        return message
    }

    /// Waits until `count` messages were received in all and returns them.
    func messages(count: Int, within limit: Duration = .seconds(20)) async throws -> [TransportMessage] {
        var result: [TransportMessage] = []
        try await waitUntil("\(count) messages", within: limit) {
            try state.withLock { state in
                if state.messages.count >= count {
                    result = Array(state.messages.prefix(count))
                    return true
                }
                if let closure = state.closure {
                    throw closure.asError
                }
                return false
            }
        }
        return result
    }

    /// Waits for the connection to end and returns how it did.
    func closure(within limit: Duration = .seconds(10)) async throws -> TransportClosure {
        var closure: TransportClosure?
        try await waitUntil("the close", within: limit) {
            closure = state.withLock { $0.closure }
            return closure != nil
        }
        guard let closure else { throw TimeLimitExceeded(description: "no close") }
        return closure
    }
}
