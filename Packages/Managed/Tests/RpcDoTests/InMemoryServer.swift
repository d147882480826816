import Foundation
import CapnWeb
import RpcDo
import RpcTransport
import CapnWebTesting
import Synchronization

/// A Cap'n Web server reached through in-memory transport pairs: each connect makes a pair and
/// serves ``TestService`` on the far end. It can cut every connection and refuse new ones.
final class InMemoryServer: Sendable {
    private struct State {
        var serverEnds: [InMemoryTransport] = []
        var sessions: [RpcSession<Any>] = []
        var refusing = false
        var connects = 0
        var headers: [[String: String]] = []
    }

    let service = ServiceState()
    private let lock = Mutex(State())

    var connects: Int { lock.withLock { $0.connects } }
    var headers: [[String: String]] { lock.withLock { $0.headers } }

    func setRefusing(_ refusing: Bool) { lock.withLock { $0.refusing = refusing } }

    /// The server's ends of the connections made since the last ``cutAll()``, oldest first.
    var serverEnds: [InMemoryTransport] { lock.withLock { $0.serverEnds } }

    /// How many of the server's ends are still open.
    var openConnections: Int {
        lock.withLock { $0.serverEnds }.filter { !$0.state.isClosed }.count
    }

    /// Cuts every open connection (both ends see an abnormal closure).
    func cutAll() {
        let ends = lock.withLock { state in
            defer { state.serverEnds = [] }
            return state.serverEnds
        }
        for end in ends { end.disconnect() }
    }

    /// The factory a client uses.
    var factory: ReconnectingConnection.TransportFactory {
        { [self] headers in
            let refusing = lock.withLock { state in
                state.headers.append(headers)
                return state.refusing
            }
            if refusing { throw TransportError(code: .connectFailed, message: "connection refused") }
            let (client, server) = InMemoryTransport.makePair()
            let session = RpcSession<Any>.start(transport: server, main: TestService(state: service))
            lock.withLock { state in
                state.connects += 1
                state.serverEnds.append(server)
                state.sessions.append(session)
            }
            return client
        }
    }

    /// A client configuration with fast reconnects, for tests.
    static func configuration(maxRetries: Int = 3, timeout: Double = 10) -> RpcClientConfiguration {
        var configuration = RpcClientConfiguration(
            url: URL(string: "ws://in-memory.test/rpc") ?? URL(filePath: "/"),
            timeout: timeout,
            maxRetries: maxRetries,
            retryBaseDelay: 0.02,
            maxRetryDelay: 0.5)
        configuration.reconnect = .exponentialBackoff(maxAttempts: 50, baseDelay: .milliseconds(20), maxDelay: .milliseconds(200))
        return configuration
    }
}
