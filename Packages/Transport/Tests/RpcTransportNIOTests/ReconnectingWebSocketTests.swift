import RpcTransport
import RpcTransportNIO
import Synchronization
import RpcTesting
import Testing

@Suite("ReconnectingConnection over WebSocket (127.0.0.1)")
struct ReconnectingWebSocketTests {
    /// Short delays for tests.
    static func configuration(keepalive: Keepalive? = nil) -> ReconnectingConnectionConfiguration {
        ReconnectingConnectionConfiguration(
            reconnect: ReconnectPolicy(maxAttempts: 200, backoff: .exponential(base: .milliseconds(5), max: .milliseconds(50))),
            connectTimeout: .seconds(5),
            keepalive: keepalive)
    }

    @Test("the keepalive pings a server that answers (counted at the server) and replaces a connection to one that does not")
    func keepaliveOverSockets() async throws {
        let silent = try await ScriptedWebSocketServer.start(answerPings: false)
        let answering = try await ScriptedWebSocketServer.start()
        let target = Mutex(silent.port)
        let factory: ReconnectingConnection.TransportFactory = { _ in
            try await WebSocketClient.connect(to: "ws://127.0.0.1:\(target.withLock { $0 })/")
        }
        let keepalive = Keepalive(interval: .milliseconds(50), timeout: .milliseconds(400))
        try await ReconnectingConnection.withReconnectingConnection(
            configuration: Self.configuration(keepalive: keepalive), factory: factory, handler: .messages { _ in }
        ) { connection in
            // The next connection goes to the server that answers.
            target.withLock { $0 = answering.port }
            try await waitUntil("a reconnect after the silent server's ping went unanswered") {
                connection.currentTransport != nil && answering.received.contains { $0.opcode == 0x9 }
            }
            #expect(silent.received.contains { $0.opcode == 0x9 })
            try await waitUntil("three pings answered by the server") {
                answering.received.filter { $0.opcode == 0x9 }.count >= 3
            }
            let link = try await connection.link()
            #expect(link.generation == 2)
            #expect(connection.state.isConnected)
        }
        await silent.stop()
        await answering.stop()
    }

    @Test("a server shut down mid-session is reconnected to once it is back on the same port, and messages flow again")
    func serverRestart() async throws {
        let states = Mutex<[String]>([])
        let inbox = Mutex<[String]>([])
        let port = Mutex(0)
        let factory: ReconnectingConnection.TransportFactory = { _ in
            try await WebSocketClient.connect(to: "ws://127.0.0.1:\(port.withLock { $0 })/")
        }
        let connection = ReconnectingConnection(
            configuration: Self.configuration(),
            factory: factory,
            handler: .messages { message in inbox.withLock { $0.append(message.text ?? "") } })
        connection.onStateChange { state in states.withLock { $0.append(state.description) } }
        try await EchoServer.run { server, _ in
            port.withLock { $0 = server.port ?? 0 }
            try await connection.start()
            try await connection.send(.text("before"))
            try await waitUntil("the echo") { inbox.withLock { $0 } == ["before"] }
        }
        try await waitUntil("reconnecting") { states.withLock { $0.contains { $0.hasPrefix("reconnecting") } } }
        let configuration = EchoServer.configuration(address: .host("127.0.0.1", port: port.withLock { $0 }))
        try await EchoServer.run(configuration: configuration) { _, _ in
            try await waitUntil("connected again") { connection.state.isConnected }
            try await connection.send(.text("after"))
            try await waitUntil("the second echo") { inbox.withLock { $0 } == ["before", "after"] }
            let link = try await connection.link()
            #expect(link.generation == 2)
            await connection.close()
        }
        #expect(states.withLock { $0.last } == "disconnected")
    }
}
