import RpcTransport
import RpcTransportNIO
import Testing

/// permessage-deflate with the default size threshold against the Python `websockets` package:
/// messages below the threshold go uncompressed between compressed ones, and both compression
/// histories stay in step on both sides.
@Suite("permessage-deflate threshold against Python websockets", .timeLimit(.minutes(2)))
struct DeflateThresholdInteropTests {
    /// Sizes on both sides of the default 1,024-byte threshold, small ones between large ones,
    /// with repeats so that later compressed messages refer back across skipped ones.
    static let sizes = [2000, 10, 2000, 1023, 1024, 500, 70_000, 0, 3000, 300, 2000, 1]

    @Test("our client on the default settings exchanges a mixed sequence with the Python server intact", arguments: PayloadKind.allCases)
    func ourClient(kind: PayloadKind) async throws {
        try await PythonServer.run { server, port in
            let configuration = WebSocketClientConfiguration.interop(deflate: .default)
            try await withWebSocketConnection(to: "ws://127.0.0.1:\(port)/echo", configuration: configuration) { transport in
                #expect(transport.isCompressionEnabled)
                let recorder = TransportRecorder.start(transport)
                for (index, size) in Self.sizes.enumerated() {
                    let message = MessagePattern.message(kind, size: size)
                    try await transport.send(message)
                    let echo = try await recorder.message(number: index + 1)
                    #expect(echo.kind == message.kind && echo.bytes == message.bytes, "the \(size)-byte \(kind) message")
                }
            }
            _ = try await server.waitForEvent("the closed event") { $0.event == "closed" }
            let received = server.events.filter { $0.event == "message" }
            #expect(received.map(\.length) == Self.sizes)
        }
    }

    @Test("our server on the default settings exchanges a mixed sequence with the Python client intact", arguments: PayloadKind.allCases)
    func ourServer(kind: PayloadKind) async throws {
        try await OurServer.run(OurServer.configuration(deflate: .default)) { port, record in
            var options = PythonClientOptions(url: "ws://127.0.0.1:\(port)/echo")
            options.messages = Self.sizes.map { MessagePattern.spec(kind, size: $0) }
            let run = try await PythonClient.run(options)
            #expect(run.errors.isEmpty, "\(run.transcript)")
            #expect(run.open?.extensions?.contains("permessage-deflate") == true, "\(run.transcript)")
            #expect(run.messages.map(\.length) == Self.sizes, "\(run.transcript)")
            #expect(run.messages.allSatisfy { $0.matchesSent == true }, "\(run.transcript)")
            let connection = try await record.firstClosedConnection()
            #expect(connection.transport.isCompressionEnabled)
            #expect(connection.messages.map(\.bytes.count) == Self.sizes)
        }
    }
}
