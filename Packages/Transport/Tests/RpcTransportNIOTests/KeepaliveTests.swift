import RpcTransport
import RpcTransportNIO
import RpcTesting
import Testing

@Suite("WebSocket ping and the keepalive scheduler (127.0.0.1)")
struct KeepaliveTests {
    @Test("ping() sends a ping frame the server sees and returns once the server's pong arrives")
    func pingAnswered() async throws {
        try await ScriptedWebSocketServer.run { server in
            let transport = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(server.port)/")
            try await transport.ping()
            try await transport.ping()
            #expect(server.received.filter { $0.opcode == 0x9 }.count == 2)
            #expect(transport.state.isOpen)
            await transport.close()
        }
    }

    @Test("a ping the server never answers stops waiting when cancelled, and fails with the error that ends the connection")
    func pingUnanswered() async throws {
        try await ScriptedWebSocketServer.run(answerPings: false) { server in
            let transport = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(server.port)/")
            let waiting = Task { () -> TransportError.Code? in
                do throws(TransportError) {
                    try await transport.ping()
                    return nil
                } catch {
                    return error.code
                }
            }
            try await waitUntil("the ping reached the server") { server.received.contains { $0.opcode == 0x9 } }
            waiting.cancel()
            #expect(await waiting.value == .cancelled)
            let ending = Task { () -> TransportError.Code? in
                do throws(TransportError) {
                    try await transport.ping()
                    return nil
                } catch {
                    return error.code
                }
            }
            try await waitUntil("the second ping reached the server") { server.received.filter { $0.opcode == 0x9 }.count == 2 }
            await transport.abort(TransportError(code: .keepaliveTimeout, message: "test"))
            #expect(await ending.value == .keepaliveTimeout)
            let closure = try await EventRecorder(transport).closure(within: .seconds(5))
            #expect(closure.error?.code == .keepaliveTimeout)
        }
    }

    @Test("a server with keepalive pings each accepted client, and drops one that never answers with keepaliveTimeout")
    func serverPingsItsPeers() async throws {
        var configuration = EchoServer.configuration()
        configuration.keepalive = WebSocketKeepalive(interval: .milliseconds(50), timeout: .milliseconds(300))
        try await EchoServer.run(configuration: configuration) { server, observations in
            let raw = try await RawTCPClient.connect(port: server.port ?? 0)
            _ = try await raw.upgrade()
            // The raw client never answers, so the first ping is the only one before the drop.
            try await waitUntil("a ping from the server") { raw.framesAfterHead.contains { $0.opcode == 0x9 } }
            let closure = try await observations.closures(count: 1)[0]
            #expect(closure.error?.code == .keepaliveTimeout)
            try await raw.waitUntilClosed()
        }
    }

    @Test("a server with keepalive keeps a client that answers its pings")
    func serverKeepsAnsweringPeer() async throws {
        var configuration = EchoServer.configuration()
        configuration.keepalive = WebSocketKeepalive(interval: .milliseconds(20), timeout: .seconds(2))
        try await EchoServer.run(configuration: configuration) { server, observations in
            let transport = try await WebSocketClient.connect(to: EchoServer.url(server))
            let recorder = EventRecorder(transport)
            let accepted = try await observations.transport()
            // Several answered rounds: each ping awaits its pong before the next is sent.
            for _ in 0..<3 {
                try await accepted.ping()
            }
            try await transport.send(.text("still here"))
            #expect(try await recorder.nextMessage() == .text("still here"))
            #expect(observations.closures.isEmpty)
            await transport.close()
        }
    }
}
