import RpcDo
import RpcTransport
import CapnWebTesting
import RpcWire
import Synchronization
import Testing

/// A JSON-RPC peer over in-memory pairs: `echo` answers its params, `slow` answers after 1 s,
/// `never` never answers, `fail` answers with an error; `announce` also sends a notification.
/// It records every message it receives and can cut or refuse connections.
final class JSONPeer: Sendable {
    private struct State {
        var ends: [InMemoryTransport] = []
        var received: [String] = []
        var refusing = false
        var connects = 0
    }

    private let lock = Mutex(State())
    var received: [String] { lock.withLock { $0.received } }
    var connects: Int { lock.withLock { $0.connects } }
    func setRefusing(_ refusing: Bool) { lock.withLock { $0.refusing = refusing } }

    func cutAll() {
        let ends = lock.withLock { state in
            defer { state.ends = [] }
            return state.ends
        }
        for end in ends { end.disconnect() }
    }

    var factory: ReconnectingConnection.TransportFactory {
        { [self] _ in
            if lock.withLock({ $0.refusing }) { throw TransportError(code: .connectFailed, message: "refused") }
            let (client, server) = InMemoryTransport.makePair()
            lock.withLock { state in
                state.ends.append(server)
                state.connects += 1
            }
            server.start { [self] event in
                guard case .message(let message) = event else { return }
                handle(message, on: server)
            }
            return client
        }
    }

    private func handle(_ message: TransportMessage, on server: InMemoryTransport) {
        let codec = JSONRPCCodec()
        guard let packet = try? codec.decode(message.bytes) else { return }
        for message in packet.messages {
            lock.withLock { $0.received.append(message.method ?? "?") }
            guard case .request(let id, let method, let params) = message else { continue }
            let answer: JSONRPCMessage?
            switch method {
            case "echo", "announce": answer = .success(id: id, result: params.map(\.jsonValue) ?? .null)
            case "fail": answer = .failure(id: id, error: JSONRPCErrorObject(code: 7, message: "boom"))
            case "never": answer = nil
            case "slow":
                Task {
                    try? await Task.sleep(for: .seconds(1))
                    if let bytes = try? codec.encode(.success(id: id, result: .string("slow"))) {
                        try? server.enqueue(.text(utf8: bytes))
                    }
                }
                answer = nil
            default: answer = .failure(id: id, error: .methodNotFound(method))
            }
            if method == "announce", let bytes = try? codec.encode(.notification(method: "news", params: nil)) {
                try? server.enqueue(.text(utf8: bytes))
            }
            if let answer, let bytes = try? codec.encode(answer) {
                try? server.enqueue(.text(utf8: bytes))
            }
        }
    }
}
