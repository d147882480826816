import RpcTransport
import Synchronization
import RpcTesting

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
        try await waitFor("a message", timeout: limit) {
            try state.withLock { state -> TransportMessage? in
                if state.consumed < state.messages.count {
                    defer { state.consumed += 1 }
                    return state.messages[state.consumed]
                }
                if let closure = state.closure {
                    throw closure.asError
                }
                return nil
            }
        }
    }

    /// Waits until `count` messages were received in all and returns them.
    func messages(count: Int, within limit: Duration = .seconds(20)) async throws -> [TransportMessage] {
        try await waitFor("\(count) messages", timeout: limit) {
            try state.withLock { state -> [TransportMessage]? in
                if state.messages.count >= count {
                    return Array(state.messages.prefix(count))
                }
                if let closure = state.closure {
                    throw closure.asError
                }
                return nil
            }
        }
    }

    /// Waits for the connection to end and returns how it did.
    func closure(within limit: Duration = .seconds(10)) async throws -> TransportClosure {
        try await waitFor("the close", timeout: limit) { state.withLock { $0.closure } }
    }
}
