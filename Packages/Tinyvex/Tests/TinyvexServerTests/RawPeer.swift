import Foundation
import RpcTransport
import RpcTransportNIO
import RpcWire
import Synchronization
import Testing

/// A JSON-RPC peer that speaks the protocol by hand over a real WebSocket: what any client
/// of the documented protocol would send, and everything the server sends back, in order.
final class RawPeer: JSONRPCPeer {
    static let defaultWaitTimeout: Duration = .seconds(10)
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
        try await transport.send(try Self.request(id: id, method, params))
        return try await answer(to: .integer(id))
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
