import RpcTransport
import RpcTransportInMemory
import Synchronization
import Testing

/// The far side of a ``ReconnectingConnection`` in tests: each connect makes an in-memory
/// pair and keeps the peer's end, which echoes every message but `hold` (never answered).
/// It can refuse connects, hang them, go silent (no echo, no pongs) and cut every connection.
final class ScriptedPeer: Sendable {
    enum Connect: Sendable {
        case accept
        case refuse
        case hang
    }

    private struct State {
        var ends: [InMemoryTransport] = []
        var received: [String] = []
        var connects = 0
        var mode = Connect.accept
        var silent = false
    }

    private let state = Mutex(State())

    struct Refused: Error {}

    /// Opens a pair per connect, per the current mode.
    var factory: ReconnectingConnection.TransportFactory {
        { [self] _ in
            switch state.withLock({ $0.mode }) {
            case .refuse:
                throw Refused()
            case .hang:
                try await Task.sleep(for: .seconds(3600))
                throw Refused()
            case .accept:
                break
            }
            let (client, server) = InMemoryTransport.makePair()
            let silent = state.withLock { state in
                state.ends.append(server)
                state.connects += 1
                return state.silent
            }
            server.setAnswersPings(!silent)
            server.start { [self] event in
                guard case .message(let message) = event, let text = message.text else { return }
                let echo = state.withLock { state in
                    state.received.append(text)
                    return !state.silent && text != "hold"
                }
                if echo { try? server.enqueue(message) }
            }
            return client
        }
    }

    var connects: Int { state.withLock { $0.connects } }
    var received: [String] { state.withLock { $0.received } }
    var ends: [InMemoryTransport] { state.withLock { $0.ends } }

    func setMode(_ mode: Connect) {
        state.withLock { $0.mode = mode }
    }

    /// Stops answering anything (messages and pings) on every end, open or future.
    func goSilent() {
        let ends = state.withLock { state in
            state.silent = true
            return state.ends
        }
        for end in ends { end.setAnswersPings(false) }
    }

    /// Drops every open connection without a close handshake, as a killed server does.
    func cutAll() {
        for end in ends { end.disconnect() }
    }
}

/// Collects values from any thread.
final class Collected<Value: Sendable>: Sendable {
    private let values = Mutex<[Value]>([])

    func append(_ value: Value) {
        values.withLock { $0.append(value) }
    }

    var all: [Value] { values.withLock { $0 } }
}

/// A configuration with short delays, for tests.
func quickConfiguration(_ change: (inout ReconnectingConnectionConfiguration) -> Void = { _ in }) -> ReconnectingConnectionConfiguration {
    var configuration = ReconnectingConnectionConfiguration(
        reconnect: ReconnectPolicy(maxAttempts: 50, backoff: .exponential(base: .milliseconds(5), max: .milliseconds(40))),
        connectTimeout: .seconds(5))
    change(&configuration)
    return configuration
}
