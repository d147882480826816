import Foundation
import RpcTransport
import RpcWire
import Synchronization
import Testing
import TinyvexServer

/// A client of the documented protocol on an in-memory connection served by a running server,
/// whose reading speed the test sets (see ``ScriptedTransport``): a slow or absent reader is
/// what the server sees.
final class InMemoryPeer: JSONRPCPeer {
    static let defaultWaitTimeout: Duration = .seconds(20)
    let transport: ScriptedTransport
    private let nextID = Mutex<Int64>(0)
    private let serving: Task<Void, Never>
    private let done = Received()

    init(serving tinyvex: TinyvexServer, reading: ScriptedTransport.Reading = .freely) {
        let transport = ScriptedTransport(reading: reading)
        self.transport = transport
        let done = self.done
        serving = Task {
            await tinyvex.serve(transport)
            done.values.withLock { $0.append(true) }
        }
    }

    /// Whether the server's handler of this connection has returned.
    var served: Bool { !done.values.withLock { $0 }.isEmpty }

    /// Closes the connection from the client's side without reading anything more.
    func closeWithoutReading() async {
        await transport.close(code: .normal, reason: "")
    }

    /// Everything the client has read so far.
    var messages: [JSONValue] { transport.sent.compactMap { try? JSONParser().parse($0.bytes) } }

    /// How the server ended the connection, once it has.
    var ended: TransportClosure? { transport.closure }

    /// Changes how the client reads.
    func setReading(_ reading: ScriptedTransport.Reading) {
        transport.setReading(reading)
    }

    func sendText(_ text: String) {
        transport.deliver(.text(text))
    }

    /// Sends a request without waiting for its answer; returns its id.
    @discardableResult
    func request(_ method: String, _ params: JSONObject? = nil) throws -> JSONValue {
        let id = nextID.withLock { $0 += 1; return $0 }
        transport.deliver(try Self.request(id: id, method, params))
        return .integer(id)
    }

    /// Sends a request and waits for its answer.
    func call(_ method: String, _ params: JSONObject? = nil, timeout: Duration = .seconds(20)) async throws -> JSONValue {
        try await answer(to: try request(method, params), timeout: timeout)
    }

    func close() async {
        transport.setReading(.freely)
        await transport.close(code: .normal, reason: "")
        await serving.value
    }
}
