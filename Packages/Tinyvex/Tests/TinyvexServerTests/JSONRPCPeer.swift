import RpcDoTesting
import RpcTransport
import RpcWire
import Testing

/// What the test clients of the documented protocol share (``RawPeer`` over a WebSocket,
/// ``InMemoryPeer`` over an in-memory connection): the messages they have read, how to find
/// one among them, and how a request is written.
protocol JSONRPCPeer: Sendable {
    /// Everything the peer has read so far, in order.
    var messages: [JSONValue] { get }
    /// How long ``waitFor(_:timeout:_:)`` waits when not told.
    static var defaultWaitTimeout: Duration { get }
}

extension JSONRPCPeer {
    /// The notifications of `method` received so far.
    func notifications(_ method: String) -> [JSONObject] {
        messages.compactMap { $0["method"] == .string(method) ? $0["params"]?.objectValue : nil }
    }

    /// Waits until `find` returns something from the messages received so far.
    func waitFor<T>(_ what: String, timeout: Duration? = nil, _ find: ([JSONValue]) -> T?) async throws -> T {
        try await RpcTesting.waitFor(what, timeout: timeout ?? Self.defaultWaitTimeout) { find(messages) }
    }

    /// Waits for the answer to the request `id`.
    func answer(to id: JSONValue, timeout: Duration? = nil) async throws -> JSONValue {
        try await waitFor("the answer to \(id)", timeout: timeout) { messages in
            messages.first { $0["id"] == id && $0["method"] == nil }
        }
    }

    /// The text frame of the request `id` to `method`.
    static func request(id: Int64, _ method: String, _ params: JSONObject?) throws -> TransportMessage {
        var message: JSONObject = ["jsonrpc": "2.0", "id": .integer(id), "method": .string(method)]
        if let params { message.updateValue(.object(params), forKey: "params") }
        return .text(utf8: try JSONSerializer().serialize(.object(message)))
    }
}
