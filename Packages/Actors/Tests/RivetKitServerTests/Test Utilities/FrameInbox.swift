import RivetKit
import RpcTransportNIO

/// Reads a WebSocket's (or an in-memory transport's) text frames in order, each within a time
/// limit.
final class FrameInbox: Sendable {
    struct TimedOut: Error {}
    struct Closed: Error { var closure: TransportClosure }

    private let stream: AsyncStream<TransportEvent>
    let transport: any MessageTransport

    init(_ transport: any MessageTransport) {
        self.transport = transport
        let (stream, continuation) = AsyncStream<TransportEvent>.makeStream()
        self.stream = stream
        transport.start { event in
            continuation.yield(event)
            if case .closed = event { continuation.finish() }
        }
    }

    /// The subprotocol a WebSocket selected; `nil` for an in-memory transport.
    var subprotocol: String? { (transport as? WebSocketTransport)?.subprotocol }

    /// The next event, within `limit`.
    func nextEvent(within limit: Duration = .seconds(10)) async throws -> TransportEvent {
        let stream = self.stream
        return try await withThrowingTaskGroup(of: TransportEvent?.self) { group in
            group.addTask {
                var iterator = stream.makeAsyncIterator()
                return await iterator.next()
            }
            group.addTask {
                try await Task.sleep(for: limit)
                throw TimedOut()
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let event = first else { throw TimedOut() }
            return event
        }
    }

    /// The next text frame, within `limit`; throws when the connection closes first.
    func next(within limit: Duration = .seconds(10)) async throws -> String {
        switch try await nextEvent(within: limit) {
        case .message(let message):
            return message.text ?? ""
        case .closed(let closure):
            throw Closed(closure: closure)
        }
    }

    /// The next frame decoded as a server message.
    func nextMessage(within limit: Duration = .seconds(10)) async throws -> ServerMessage {
        try RivetMessageCodec.decodeServerMessage(try await next(within: limit))
    }

    /// The closure, once the connection has closed (skipping frames).
    func closure(within limit: Duration = .seconds(10)) async throws -> TransportClosure {
        while true {
            if case .closed(let closure) = try await nextEvent(within: limit) { return closure }
        }
    }

    /// Sends a client message.
    func send(_ message: ClientMessage) async throws {
        try await transport.send(.text(RivetMessageCodec.encode(message)))
    }
}
