import RpcTransport
import RpcTransportInMemory
import RpcWire
import Synchronization

/// The client end of the fuzzed connection: it sends the input's frames as they are, records
/// every frame the server sends, and answers the server's own calls the simplest way, so that
/// the server's outbound paths (a callback it calls, a stream it writes) run too.
///
/// The server numbers its imports 1, 2, ... in the order it sends `push`, `stream` and `pipe`;
/// the peer follows that numbering, resolves every import the server pulls with `42` and every
/// `stream` call with `undefined`.
final class ClientPeer: Sendable {
    private struct State {
        /// How many frames arrived (only the first few are kept, for failure messages).
        var received = 0
        var firstFrames: [String] = []
        /// The ID the server's next `push`, `stream` or `pipe` takes.
        var nextServerImport: Int64 = 1
        var closed = false
    }

    /// Frames kept for a failure message.
    private static let keptFrames = 16

    let transport: InMemoryTransport
    private let state = Mutex(State())
    private let codec = CapnWebCodec()

    /// Starts recording (and answering) what arrives on `transport`.
    init(_ transport: InMemoryTransport) {
        self.transport = transport
        transport.start { [weak self] event in
            switch event {
            case .message(let message):
                self?.received(message)
            case .closed:
                self?.state.withLock { $0.closed = true }
            }
        }
    }

    /// Sends one text frame; `false` once the connection is closed.
    func send(_ text: String) -> Bool {
        (try? transport.enqueue(.text(text))) != nil
    }

    /// How many frames the server sent, and the first of them.
    var transcript: (count: Int, first: [String]) {
        state.withLock { ($0.received, $0.firstFrames) }
    }

    private func received(_ message: TransportMessage) {
        let text = message.text ?? "<binary \(message.bytes.count) bytes>"
        let decoded = try? codec.decode(message.bytes)
        let answer = state.withLock { state -> String? in
            state.received += 1
            if state.firstFrames.count < Self.keptFrames {
                state.firstFrames.append(text)
            }
            switch decoded {
            case .push, .pipe:
                state.nextServerImport += 1
                return nil
            case .stream:
                defer { state.nextServerImport += 1 }
                return #"["resolve",\#(state.nextServerImport),["undefined"]]"#
            case .pull(let id):
                return #"["resolve",\#(id),42]"#
            default:
                return nil
            }
        }
        if let answer {
            _ = send(answer)
        }
    }
}
