import RpcTesting
import RpcTransport
import Synchronization

/// Records what a transport delivers, for a test to wait on with bounded waits.
final class MessageLog: Sendable {
    private struct State {
        var messages: [TransportMessage] = []
        var consumed = 0
        var closure: TransportClosure?
    }

    private let state = Mutex(State())

    /// Starts recording the events of `transport`.
    init(_ transport: some MessageTransport) {
        transport.start { [self] event in
            state.withLock { state in
                switch event {
                case .message(let message): state.messages.append(message)
                case .closed(let closure): state.closure = closure
                }
            }
        }
    }

    /// The next message not yet returned; fails when the connection closes first.
    func next(within limit: Duration = .seconds(20)) async throws -> TransportMessage {
        try await waitFor("a message", timeout: limit) {
            try state.withLock { state -> TransportMessage? in
                if state.consumed < state.messages.count {
                    defer { state.consumed += 1 }
                    return state.messages[state.consumed]
                }
                if let closure = state.closure { throw closure.asError }
                return nil
            }
        }
    }

    /// How the connection ended, once it has.
    func closure(within limit: Duration = .seconds(20)) async throws -> TransportClosure {
        try await waitFor("the close", timeout: limit) { state.withLock { $0.closure } }
    }
}
