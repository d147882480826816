import NIOCore
import RpcTesting
import RpcTransport
@testable import RpcTransportNIO
import Testing

/// The size threshold below which permessage-deflate sends messages as they are, checked on the
/// wire with a hand-written client that decodes the server's frames itself.
@Suite("permessage-deflate size threshold")
struct DeflateThresholdTests {
    /// The offer a browser or node's `ws` makes.
    private static let offer = "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits"

    /// Repetitive text of `size` bytes whose every message shares most of its content with the
    /// others, so that context takeover shortens later messages.
    private static func text(_ size: Int, seed: Int) -> [UInt8] {
        let words = ["alpha ", "beta ", "gamma ", "delta ", "epsilon "]
        var bytes: [UInt8] = []
        var index = seed
        while bytes.count < size {
            bytes.append(contentsOf: words[index % words.count].utf8)
            index += 1
        }
        return Array(bytes.prefix(size))
    }

    /// Sends `messages` from a raw client (compressing those at or above `threshold` with its own
    /// compressor and context takeover), then decodes the server's echoes with its own
    /// decompressor, checking each frame's RSV1 against the server's `threshold`.
    private static func exchange(
        server configuration: PerMessageDeflateConfiguration,
        clientThreshold: Int,
        messages: [[UInt8]]
    ) async throws {
        var serverConfiguration = EchoServer.configuration()
        serverConfiguration.deflate = configuration
        try await EchoServer.run(configuration: serverConfiguration) { server, _ in
            let raw = try await RawTCPClient.connect(port: server.port ?? 0)
            defer { Task { await raw.close() } }
            let head = try await raw.upgrade(extraHeaders: [offer])
            #expect(head.lowercased().contains("permessage-deflate"), "\(head)")
            let compressor = try MessageCompressor(windowBits: 15, noContextTakeover: false, level: 6)
            let allocator = ByteBufferAllocator()
            for message in messages {
                if message.count >= clientThreshold {
                    let compressed = try compressor.compress(ByteBuffer(bytes: message), allocator: allocator)
                    try await raw.write(
                        TestFrame.encode(opcode: 0x1, payload: Array(compressed.readableBytesView), reserved: 0x40))
                } else {
                    try await raw.write(TestFrame.encode(opcode: 0x1, payload: message))
                }
            }
            try await waitUntil("every echo", timeout: .seconds(10)) {
                raw.framesAfterHead.filter { $0.opcode == 0x1 }.count >= messages.count
            }
            let frames = raw.framesAfterHead.filter { $0.opcode == 0x1 }
            let decompressor = try MessageDecompressor(windowBits: 15, noContextTakeover: false, maximumMessageSize: 1 << 20)
            let threshold = configuration.effectiveMinimumSizeToCompress
            for (frame, message) in zip(frames, messages) {
                let compressed = frame.reserved & 0x40 != 0
                #expect(compressed == (message.count >= threshold), "a \(message.count)-byte message")
                let payload =
                    compressed
                    ? Array(try decompressor.decompress(ByteBuffer(bytes: frame.payload), allocator: allocator).readableBytesView)
                    : frame.payload
                #expect(payload == message, "a \(message.count)-byte message")
            }
            #expect(raw.framesAfterHead.allSatisfy { $0.opcode != 0x8 }, "the server closed the connection")
        }
    }

    @Test("the default threshold is node's 1,024 bytes")
    func defaultThreshold() {
        #expect(PerMessageDeflateConfiguration.default.minimumSizeToCompress == 1024)
        #expect(PerMessageDeflateConfiguration().effectiveMinimumSizeToCompress == 1024)
    }

    @Test("a server with the default settings sends a 1,023-byte message uncompressed and a 1,024-byte one compressed")
    func serverSkipsSmallMessagesByDefault() async throws {
        try await Self.exchange(
            server: .default,
            clientThreshold: .max,
            messages: [Self.text(300, seed: 0), Self.text(1023, seed: 1), Self.text(1024, seed: 2), Self.text(20, seed: 3)]
        )
    }

    @Test(
        "compressed and uncompressed messages mixed in both directions keep both compression histories in step",
        arguments: [0, 64, 1024]
    )
    func mixedSequenceBothWays(clientThreshold: Int) async throws {
        // Large messages repeat earlier ones, so they refer back across the small ones in
        // between; a history that took a skipped message in would decode them wrongly.
        let messages = [
            Self.text(10, seed: 0), Self.text(2000, seed: 1), Self.text(63, seed: 2), Self.text(64, seed: 2),
            Self.text(2000, seed: 1), Self.text(5, seed: 4), Self.text(3000, seed: 3), Self.text(100, seed: 1),
            Self.text(2000, seed: 1), Self.text(0, seed: 0), Self.text(70_000, seed: 2),
        ]
        try await Self.exchange(
            server: PerMessageDeflateConfiguration(minimumSizeToCompress: 64),
            clientThreshold: clientThreshold,
            messages: messages
        )
    }

    @Test("our client and server with different thresholds exchange a mixed sequence intact")
    func clientAndServerMixed() async throws {
        var serverConfiguration = EchoServer.configuration()
        serverConfiguration.deflate = PerMessageDeflateConfiguration(minimumSizeToCompress: 500)
        try await EchoServer.run(configuration: serverConfiguration) { server, _ in
            var clientConfiguration = WebSocketClientConfiguration()
            clientConfiguration.deflate = PerMessageDeflateConfiguration(minimumSizeToCompress: 100)
            let client = try await WebSocketClient.connect(to: EchoServer.url(server), configuration: clientConfiguration)
            #expect(client.isCompressionEnabled)
            let received = Recorder<[UInt8]>()
            client.start { event in
                if case .message(let message) = event { received.append(message.bytes) }
            }
            let sizes = [10, 99, 100, 499, 500, 3000, 1, 600, 200, 40_000, 0, 501]
            let messages = sizes.enumerated().map { Self.text($0.element, seed: $0.offset % 3) }
            for message in messages {
                try await client.send(.text(utf8: message))
            }
            try await waitUntil("every echo", timeout: .seconds(10)) { received.all.count >= messages.count }
            #expect(received.all == messages)
            await client.close(code: .normal, reason: "")
        }
    }
}
