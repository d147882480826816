import Foundation
import RpcTransport
import RpcTransportNIO
import RpcWire
import Synchronization
import Testing

/// A JSON-RPC peer that speaks the protocol by hand over a real WebSocket: what any client
/// of the documented protocol would send, and everything the server sends back, in order.
final class RawPeer: Sendable {
    let transport: WebSocketTransport
    private let box = Received()
    private let nextID = Mutex<Int64>(0)
    private let reader: Task<Void, Never>

    init(url: String) async throws {
        transport = try await WebSocketClient.connect(to: url)
        let transport = self.transport
        let box = self.box
        reader = Task {
            do {
                for try await message in transport.inboundMessages() {
                    if let value = try? JSONParser().parse(message.bytes) {
                        box.values.withLock { $0.append(value) }
                    }
                }
            } catch {}
        }
    }

    /// Everything received so far.
    var messages: [JSONValue] { box.values.withLock { $0 } }

    func close() async {
        await transport.close(code: .normal, reason: "")
        reader.cancel()
    }

    func sendText(_ text: String) async throws {
        try await transport.send(.text(text))
    }

    /// Sends a request and returns the whole answer message.
    @discardableResult
    func call(_ method: String, _ params: JSONObject? = nil) async throws -> JSONValue {
        let id = nextID.withLock { $0 += 1; return $0 }
        var message: JSONObject = ["jsonrpc": "2.0", "id": .integer(id), "method": .string(method)]
        if let params { message.updateValue(.object(params), forKey: "params") }
        try await transport.send(.text(utf8: try JSONSerializer().serialize(.object(message))))
        return try await answer(to: .integer(id))
    }

    func answer(to id: JSONValue) async throws -> JSONValue {
        try await waitFor("the answer to \(id)") { messages in
            messages.first { $0["id"] == id && $0["method"] == nil }
        }
    }

    /// The notifications of `method` received so far.
    func notifications(_ method: String) -> [JSONObject] {
        messages.compactMap { $0["method"] == .string(method) ? $0["params"]?.objectValue : nil }
    }

    /// Waits until `find` returns something from the messages received so far.
    func waitFor<T>(_ what: String, timeout: Duration = .seconds(10), _ find: ([JSONValue]) -> T?) async throws -> T {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let found = find(messages) { return found }
            guard ContinuousClock.now < deadline else {
                Issue.record("timed out waiting for \(what); received \(messages.count) messages")
                throw CancellationError()
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// The index of the first message matching `predicate`.
    func index(where predicate: (JSONValue) -> Bool) -> Int? {
        messages.firstIndex(where: predicate)
    }
}

/// The messages a peer has received, shared with its reading task.
final class Received: Sendable {
    let values = Mutex<[JSONValue]>([])
}

extension JSONValue {
    /// The error code of an answer, if it is an error.
    var errorCode: Int? { self["error"]?["code"]?.intValue }
    /// The Tinyvex code inside an error answer's data.
    var tinyvexCode: String? { self["error"]?["data"]?["code"]?.stringValue }
    /// The result of a successful answer.
    var result: JSONValue? { self["result"] }
}
