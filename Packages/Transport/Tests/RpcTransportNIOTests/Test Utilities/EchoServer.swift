import RpcTransport
import RpcTransportNIO
import Synchronization
import RpcTesting

/// What an echo server saw, for tests to check the server side of a connection.
final class ServerObservations: Sendable {
    private struct State {
        var transports: [WebSocketTransport] = []
        var upgrades: [WebSocketUpgradeRequest] = []
        var closures: [TransportClosure] = []
        var batches: [HTTPBatchRequest] = []
    }

    private let state = Mutex(State())

    func connected(_ transport: WebSocketTransport, _ request: WebSocketUpgradeRequest) {
        state.withLock {
            $0.transports.append(transport)
            $0.upgrades.append(request)
        }
    }

    func closed(_ closure: TransportClosure) {
        state.withLock { $0.closures.append(closure) }
    }

    func batch(_ request: HTTPBatchRequest) {
        state.withLock { $0.batches.append(request) }
    }

    var transports: [WebSocketTransport] { state.withLock { $0.transports } }
    var upgrades: [WebSocketUpgradeRequest] { state.withLock { $0.upgrades } }
    var closures: [TransportClosure] { state.withLock { $0.closures } }
    var batches: [HTTPBatchRequest] { state.withLock { $0.batches } }

    /// Waits until the server side has seen `count` connections and returns the last.
    func transport(number count: Int = 1, within limit: Duration = .seconds(10)) async throws -> WebSocketTransport {
        try await waitUntil("a server-side connection", timeout: limit) { transports.count >= count }
        return transports[count - 1]
    }

    /// Waits until `count` server-side connections ended and returns their closures.
    func closures(count: Int, within limit: Duration = .seconds(10)) async throws -> [TransportClosure] {
        try await waitUntil("\(count) server-side closes", timeout: limit) { closures.count >= count }
        return closures
    }
}

/// Echo servers on the loopback interface or a Unix domain socket.
enum EchoServer {
    /// A configuration with short timeouts for tests.
    static func configuration(
        address: TransportServerConfiguration.Address = .host("127.0.0.1", port: 0)
    ) -> TransportServerConfiguration {
        var configuration = TransportServerConfiguration(address: address)
        configuration.closeTimeout = .seconds(2)
        configuration.shutdownGracePeriod = .seconds(3)
        configuration.handshakeTimeout = .seconds(5)
        return configuration
    }

    /// Echoes every WebSocket message back, recording the connection and how it ended.
    static func echoConnections(
        _ observations: ServerObservations
    ) -> @Sendable (WebSocketTransport, WebSocketUpgradeRequest) async -> Void {
        { transport, request in
            observations.connected(transport, request)
            transport.start { event in
                if case .message(let message) = event {
                    try? transport.enqueue(message)
                }
            }
            observations.closed(await transport.waitUntilClosed())
        }
    }

    /// Answers each batch with its own messages; a batch whose first message is `fail` fails.
    static func echoBatches(
        _ observations: ServerObservations
    ) -> @Sendable (HTTPBatchRequest) async throws -> [TransportMessage] {
        { request in
            observations.batch(request)
            if request.messages.first?.text == "fail" {
                throw TransportError(code: .ioError, message: "asked to fail")
            }
            return request.messages
        }
    }

    /// Runs `body` with an echo server for WebSockets and batches.
    static func run<T>(
        configuration: TransportServerConfiguration = configuration(),
        observations: ServerObservations = ServerObservations(),
        _ body: (TransportServer, ServerObservations) async throws -> T
    ) async throws -> T {
        try await withTransportServer(
            configuration: configuration,
            onConnection: echoConnections(observations),
            onBatch: echoBatches(observations)
        ) { server in
            try await body(server, observations)
        }
    }

    /// The `ws://` URL of a server on the loopback interface.
    static func url(_ server: TransportServer, path: String = "/") -> String {
        "ws://127.0.0.1:\(server.port ?? 0)\(path)"
    }
}
