import NIOCore
import RpcTransport
import RpcTransportNIO
import RpcTransportTesting
import Testing

@Suite("WebSocket and HTTP batches over TLS")
struct SecureTransportTests {
    static func serverConfiguration(_ fixture: CertificateFixture) -> TransportServerConfiguration {
        var configuration = EchoServer.configuration()
        configuration.tls = fixture.serverConfiguration()
        return configuration
    }

    @Test("wss connections carry messages both ways, compressed or not", arguments: [false, true])
    func secureWebSocket(compressed: Bool) async throws {
        let fixture = try await CertificateFixture.shared()
        var configuration = Self.serverConfiguration(fixture)
        configuration.deflate = compressed ? .default : nil
        try await EchoServer.run(configuration: configuration) { server, _ in
            var client = WebSocketClientConfiguration()
            client.tls = fixture.clientConfiguration()
            client.deflate = compressed ? .default : nil
            let transport = try await WebSocketClient.connect(
                to: "wss://127.0.0.1:\(server.port ?? 0)/rpc", configuration: client)
            #expect(transport.isCompressionEnabled == compressed)
            let recorder = EventRecorder(transport)
            let large = TransportMessage.text(String(repeating: "secure ", count: 50_000))
            try await transport.send(.text("hello"))
            try await transport.send(large)
            #expect(try await recorder.messages(count: 2) == [.text("hello"), large])
            await transport.close()
            #expect(try await recorder.closure().isClean)
        }
    }

    @Test("https batches round-trip and reuse their connection")
    func secureBatches() async throws {
        let fixture = try await CertificateFixture.shared()
        try await EchoServer.run(configuration: Self.serverConfiguration(fixture)) { server, observations in
            var configuration = HTTPBatchClientConfiguration()
            configuration.tls = fixture.clientConfiguration()
            let client = try HTTPBatchClient(url: "https://127.0.0.1:\(server.port ?? 0)/rpc", configuration: configuration)
            #expect(try await client.exchange([.text("one")]) == [.text("one")])
            #expect(try await client.exchange([.text("two"), .text("three")]) == [.text("two"), .text("three")])
            #expect(Set(observations.batches.compactMap { $0.remoteAddress?.port }).count == 1)
            await client.close()
        }
    }

    @Test("A server certificate from an unknown CA fails the connect with a TLS error")
    func untrustedServer() async throws {
        let fixture = try await CertificateFixture.shared()
        try await EchoServer.run(configuration: Self.serverConfiguration(fixture)) { server, observations in
            let error = await #expect(throws: TransportError.self) {
                _ = try await WebSocketClient.connect(to: "wss://127.0.0.1:\(server.port ?? 0)/")
            }
            #expect(error?.code == .certificateUntrusted)
            #expect(observations.transports.isEmpty)
        }
    }

    @Test("A plaintext client cannot open a WebSocket on a TLS server")
    func plaintextClientOnTLSServer() async throws {
        let fixture = try await CertificateFixture.shared()
        try await EchoServer.run(configuration: Self.serverConfiguration(fixture)) { server, _ in
            var client = WebSocketClientConfiguration()
            client.handshakeTimeout = .seconds(3)
            await #expect(throws: TransportError.self) {
                _ = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(server.port ?? 0)/", configuration: client)
            }
        }
    }
}
