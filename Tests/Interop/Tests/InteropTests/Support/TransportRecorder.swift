import RpcTesting
import RpcTransport
import Synchronization

/// A connection ended before what a test waited for.
struct ConnectionEnded: Error, CustomStringConvertible {
    var description: String
}

/// Records every event a transport delivers to its `start` handler, for tests to wait on.
final class TransportRecorder: Sendable {
    private let events = Mutex<[TransportEvent]>([])

    private init() {}

    /// Starts `transport` with a handler that records its events.
    static func start(_ transport: some MessageTransport) -> TransportRecorder {
        let recorder = TransportRecorder()
        transport.start { event in
            recorder.events.withLock { $0.append(event) }
        }
        return recorder
    }

    /// The messages received so far.
    var messages: [TransportMessage] {
        events.withLock { events in
            events.compactMap { event in
                if case .message(let message) = event { return message }
                return nil
            }
        }
    }

    /// How the connection ended, once it has.
    var closure: TransportClosure? {
        events.withLock { events in
            for event in events {
                if case .closed(let closure) = event { return closure }
            }
            return nil
        }
    }

    /// Waits for the `number`th message (counting from 1) and returns it.
    func message(number: Int, within limit: Duration = .seconds(20)) async throws -> TransportMessage {
        try await waitFor("message \(number)", timeout: limit) { () throws -> TransportMessage? in
            let messages = self.messages
            if messages.count >= number {
                return messages[number - 1]
            }
            if let closure = self.closure {
                throw ConnectionEnded(description: "the connection ended (\(closure)) before message \(number)")
            }
            return nil
        }
    }

    /// Waits until the connection has ended and returns how.
    func waitForClosure(within limit: Duration = .seconds(20)) async throws -> TransportClosure {
        try await waitFor("the end of the connection", timeout: limit) { self.closure }
    }
}
