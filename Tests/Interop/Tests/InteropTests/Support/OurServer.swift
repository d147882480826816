import RpcTesting
import RpcTransport
import RpcTransportNIO
import Synchronization

/// What our echo server saw of its connections.
final class ServerRecord: Sendable {
    /// One WebSocket connection.
    struct Connection: Sendable {
        var transport: WebSocketTransport
        var request: WebSocketUpgradeRequest
        var messages: [TransportMessage] = []
        var closure: TransportClosure?
    }

    private let connections = Mutex<[Connection]>([])

    /// Every connection so far.
    var all: [Connection] {
        connections.withLock { $0 }
    }

    fileprivate func opened(_ transport: WebSocketTransport, _ request: WebSocketUpgradeRequest) -> Int {
        connections.withLock { connections in
            connections.append(Connection(transport: transport, request: request))
            return connections.count - 1
        }
    }

    fileprivate func received(_ message: TransportMessage, on index: Int) {
        connections.withLock { $0[index].messages.append(message) }
    }

    fileprivate func closed(_ closure: TransportClosure, on index: Int) {
        connections.withLock { $0[index].closure = closure }
    }

    /// Waits for the first connection to end and returns it.
    func firstClosedConnection(within limit: Duration = .seconds(20)) async throws -> Connection {
        try await waitFor("the end of the server-side connection", timeout: limit) {
            self.all.first.flatMap { $0.closure == nil ? nil : $0 }
        }
    }
}

/// Our `TransportServer` as an echo server for the Python client.
///
/// It echoes every message with `enqueue` from the `start` handler, except the text
/// ``closeTrigger``, on which it closes with ``closeCode`` and ``closeReason``. It accepts the
/// subprotocol ``subprotocol`` when offered, and no other.
enum OurServer {
    /// The text message that makes the server close.
    static let closeTrigger = "close-me"
    /// The close code the server closes with on ``closeTrigger``.
    static let closeCode = CloseCode(4002)
    /// The close reason that goes with ``closeCode``.
    static let closeReason = "server says bye"
    /// The subprotocol the server speaks.
    static let subprotocol = "capnweb"

    /// A configuration on a free loopback port with short timeouts.
    static func configuration(
        deflate: PerMessageDeflateConfiguration? = nil,
        tls: TLSServerConfiguration? = nil,
        maxMessageSize: Int? = nil
    ) -> TransportServerConfiguration {
        var configuration = TransportServerConfiguration(address: .host("127.0.0.1", port: 0))
        configuration.deflate = deflate
        configuration.tls = tls
        configuration.closeTimeout = .seconds(3)
        configuration.shutdownGracePeriod = .seconds(3)
        configuration.handshakeTimeout = .seconds(10)
        if let maxMessageSize {
            configuration.maxMessageSize = maxMessageSize
        }
        configuration.upgradeHook = { request in
            .accept(subprotocol: request.offeredSubprotocols.first { $0 == subprotocol })
        }
        return configuration
    }

    /// Runs the echo server while `body` runs.
    static func run<Result>(
        _ configuration: TransportServerConfiguration = configuration(),
        isolation: isolated (any Actor)? = #isolation,
        _ body: (_ port: Int, _ record: ServerRecord) async throws -> Result
    ) async throws -> Result {
        let record = ServerRecord()
        return try await withTransportServer(
            configuration: configuration,
            onConnection: { transport, request in
                let index = record.opened(transport, request)
                transport.start { event in
                    guard case .message(let message) = event else { return }
                    record.received(message, on: index)
                    if message.kind == .text, message.bytes.elementsEqual(closeTrigger.utf8) {
                        Task {
                            await transport.close(code: closeCode, reason: closeReason)
                        }
                    } else {
                        try? transport.enqueue(message)
                    }
                }
                record.closed(await transport.waitUntilClosed(), on: index)
            }
        ) { server in
            guard let port = server.port else {
                throw ConnectionEnded(description: "the server has no port")
            }
            return try await body(port, record)
        }
    }
}
