public import RpcTransport
import RpcTransportInMemory
import RpcWire
import Synchronization

/// A JSON-RPC 2.0 peer over in-memory pairs, for tests of clients of JSON-RPC protocols built on
/// the managed layer: `echo` answers its params, `held` answers `"held"` once the test releases
/// it, `never` never answers, `fail` answers with an error `{code: 7, message: "boom"}`,
/// `announce` also sends a `news` notification, any other method gets `methodNotFound`. It
/// records the method of every message it receives, and can cut or refuse connections.
///
/// ```swift
/// let peer = JSONRPCTestPeer()
/// let connection = ReconnectingConnection(configuration: configuration, factory: peer.factory, handler: handler)
/// peer.cutAll()   // as when the network drops
/// ```
public final class JSONRPCTestPeer: Sendable {
    private struct State {
        var ends: [InMemoryTransport] = []
        var received: [String] = []
        var held: [(id: JSONRPCID, end: InMemoryTransport)] = []
        var releasing = false
        var refusing = false
        var connects = 0
    }

    private let lock = Mutex(State())
    private let codec = JSONRPCCodec()

    /// Creates a peer with no connection yet.
    public init() {}

    /// The method of every message received, in order (`?` for an answer).
    public var received: [String] { lock.withLock { $0.received } }
    /// How many connections the factory made.
    public var connects: Int { lock.withLock { $0.connects } }
    /// Whether the factory refuses new connections (`connectFailed`).
    public func setRefusing(_ refusing: Bool) { lock.withLock { $0.refusing = refusing } }

    /// Cuts every open link, as when the network drops.
    public func cutAll() {
        let ends = lock.withLock { state in
            defer { state.ends = [] }
            return state.ends
        }
        for end in ends { end.disconnect() }
    }

    /// Answers the `held` requests waiting, and every later one at once.
    public func release() {
        let held = lock.withLock { state in
            state.releasing = true
            defer { state.held = [] }
            return state.held
        }
        for (id, end) in held { answer(.success(id: id, result: .string("held")), on: end) }
    }

    /// Makes the client end of a new in-memory connection to this peer.
    public var factory: @Sendable (_ headers: [String: String]) async throws -> any MessageTransport {
        { [self] _ in
            let (client, end) = InMemoryTransport.makePair()
            try lock.withLock { state throws(TransportError) in
                if state.refusing { throw TransportError(code: .connectFailed, message: "refused") }
                state.ends.append(end)
                state.connects += 1
            }
            end.start { [self] event in
                guard case .message(let message) = event else { return }
                handle(message, on: end)
            }
            return client
        }
    }

    private func handle(_ message: TransportMessage, on end: InMemoryTransport) {
        guard let packet = try? codec.decode(message.bytes) else { return }
        for message in packet.messages {
            lock.withLock { $0.received.append(message.method ?? "?") }
            guard case .request(let id, let method, let params) = message else { continue }
            switch method {
            case "echo", "announce":
                if method == "announce" { answer(.notification(method: "news", params: nil), on: end) }
                answer(.success(id: id, result: params.map(\.jsonValue) ?? .null), on: end)
            case "fail":
                answer(.failure(id: id, error: JSONRPCErrorObject(code: 7, message: "boom")), on: end)
            case "never":
                break
            case "held":
                let now = lock.withLock { state in
                    if !state.releasing { state.held.append((id, end)) }
                    return state.releasing
                }
                if now { answer(.success(id: id, result: .string("held")), on: end) }
            default:
                answer(.failure(id: id, error: .methodNotFound(method)), on: end)
            }
        }
    }

    private func answer(_ message: JSONRPCMessage, on end: InMemoryTransport) {
        if let bytes = try? codec.encode(message) { try? end.enqueue(.text(utf8: bytes)) }
    }
}
