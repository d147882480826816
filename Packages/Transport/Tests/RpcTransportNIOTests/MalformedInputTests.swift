import RpcTransport
import RpcTransportNIO
import Testing
import RpcTesting

@Suite("Malformed input from raw TCP clients")
struct MalformedInputTests {
    /// One way of breaking the protocol after a valid handshake, and the close code it earns.
    struct BrokenFrame: Sendable, CustomTestStringConvertible {
        var name: String
        var bytes: [UInt8]
        var expectedCode: UInt16
        var expectedError: TransportError.Code

        var testDescription: String { name }
    }

    static let brokenFrames: [BrokenFrame] = [
        BrokenFrame(
            name: "unmasked client frame",
            bytes: TestFrame.encode(opcode: 0x1, payload: Array("hi".utf8), masked: false),
            expectedCode: 1002,
            expectedError: .protocolViolation
        ),
        BrokenFrame(
            name: "RSV1 without an extension",
            bytes: TestFrame.encode(opcode: 0x1, payload: Array("hi".utf8), reserved: 0x40),
            expectedCode: 1002,
            expectedError: .protocolViolation
        ),
        BrokenFrame(
            name: "RSV3 set",
            bytes: TestFrame.encode(opcode: 0x2, payload: [1], reserved: 0x10),
            expectedCode: 1002,
            expectedError: .protocolViolation
        ),
        BrokenFrame(
            name: "reserved opcode",
            bytes: TestFrame.encode(opcode: 0x3, payload: [1]),
            expectedCode: 1002,
            expectedError: .protocolViolation
        ),
        BrokenFrame(
            name: "fragmented ping",
            bytes: TestFrame.encode(opcode: 0x9, payload: [1], fin: false),
            expectedCode: 1002,
            expectedError: .protocolViolation
        ),
        BrokenFrame(
            name: "continuation without a message",
            bytes: TestFrame.encode(opcode: 0x0, payload: [1]),
            expectedCode: 1002,
            expectedError: .protocolViolation
        ),
        BrokenFrame(
            name: "invalid UTF-8 in a text frame",
            bytes: TestFrame.encode(opcode: 0x1, payload: [0x68, 0xED, 0xA0, 0x80]),
            expectedCode: 1007,
            expectedError: .invalidUTF8
        ),
        BrokenFrame(
            name: "invalid UTF-8 split across fragments",
            bytes: TestFrame.encode(opcode: 0x1, payload: [0xF0, 0x9F], fin: false)
                + TestFrame.encode(opcode: 0x0, payload: [0x41]),
            expectedCode: 1007,
            expectedError: .invalidUTF8
        ),
        BrokenFrame(
            name: "oversized length field",
            bytes: TestFrame.encode(opcode: 0x2, payload: [], declaredLength: 1 << 62),
            expectedCode: 1009,
            expectedError: .messageTooLarge
        ),
        BrokenFrame(
            name: "close frame with a reserved code",
            bytes: TestFrame.encode(opcode: 0x8, payload: TestFrame.closePayload(1005)),
            expectedCode: 1002,
            expectedError: .protocolViolation
        ),
    ]

    /// Checks that the server still serves a well-behaved client.
    static func expectHealthy(_ server: TransportServer) async throws {
        try await withWebSocketConnection(to: EchoServer.url(server)) { transport in
            let recorder = EventRecorder(transport)
            try await transport.send(.text("still serving"))
            #expect(try await recorder.nextMessage() == .text("still serving"))
        }
    }

    @Test("Broken frames after the handshake are answered with the right close code", arguments: brokenFrames)
    func brokenFrame(_ broken: BrokenFrame) async throws {
        try await EchoServer.run { server, observations in
            let raw = try await RawTCPClient.connect(port: server.port ?? 0)
            let head = try await raw.upgrade()
            #expect(head.hasPrefix("HTTP/1.1 101"))
            #expect(head.contains("s3pPLMBiTxaQ9kYGzzhZRbK+xOo="))
            try await raw.write(broken.bytes)
            #expect(try await raw.closeCode() == broken.expectedCode)
            try await raw.waitUntilClosed()
            let closure = try await observations.closures(count: 1)[0]
            #expect(closure.error?.code == broken.expectedError)
            #expect(closure.code?.rawValue == broken.expectedCode)
            try await Self.expectHealthy(server)
        }
    }

    @Test("A handshake without a key is answered with 400")
    func missingKey() async throws {
        try await EchoServer.run { server, observations in
            let raw = try await RawTCPClient.connect(port: server.port ?? 0)
            try await raw.write(
                "GET / HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n\r\n"
            )
            #expect(try await raw.responseHead().hasPrefix("HTTP/1.1 400"))
            try await raw.waitUntilClosed()
            #expect(observations.transports.isEmpty)
            try await Self.expectHealthy(server)
        }
    }

    @Test("A handshake with an unsupported version is answered with 400")
    func unsupportedVersion() async throws {
        try await EchoServer.run { server, _ in
            let raw = try await RawTCPClient.connect(port: server.port ?? 0)
            try await raw.write(
                "GET / HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 8\r\n\r\n"
            )
            #expect(try await raw.responseHead().hasPrefix("HTTP/1.1 400"))
            try await Self.expectHealthy(server)
        }
    }

    @Test("Garbage instead of HTTP is answered with 400 and the connection closed")
    func garbageRequest() async throws {
        try await EchoServer.run { server, _ in
            let raw = try await RawTCPClient.connect(port: server.port ?? 0)
            try await raw.write([0x16, 0x03, 0x01, 0x00, 0xFF, 0x00, 0x0D, 0x0A, 0x0D, 0x0A])
            #expect(try await raw.responseHead().hasPrefix("HTTP/1.1 400"))
            try await raw.waitUntilClosed()
            try await Self.expectHealthy(server)
        }
    }

    @Test("A truncated frame followed by end of stream closes the connection without harm")
    func truncatedFrame() async throws {
        try await EchoServer.run { server, observations in
            let raw = try await RawTCPClient.connect(port: server.port ?? 0)
            try await raw.upgrade()
            let frame = TestFrame.encode(opcode: 0x1, payload: Array(repeating: 0x61, count: 1000))
            try await raw.write(Array(frame.prefix(300)))
            await raw.close()
            let closure = try await observations.closures(count: 1)[0]
            #expect(closure.code == .abnormal)
            #expect(!closure.isClean)
            try await Self.expectHealthy(server)
        }
    }

    @Test("Bytes after a close frame are ignored and the close is answered")
    func garbageAfterClose() async throws {
        try await EchoServer.run { server, observations in
            let raw = try await RawTCPClient.connect(port: server.port ?? 0)
            try await raw.upgrade()
            let close = TestFrame.encode(opcode: 0x8, payload: TestFrame.closePayload(1000, "done"))
            try await raw.write(close + [0xFF, 0x00, 0x13, 0x37] + TestFrame.encode(opcode: 0x1, payload: [0xFF]))
            #expect(try await raw.closeCode() == 1000)
            try await raw.waitUntilClosed()
            let closure = try await observations.closures(count: 1)[0]
            #expect(closure.isClean)
            #expect(closure.code == .normal)
            #expect(closure.reason == "done")
            #expect(raw.framesAfterHead.filter { $0.opcode == 0x8 }.count == 1)
            try await Self.expectHealthy(server)
        }
    }

    @Test("Frames sent right behind the handshake request, before the answer, are processed")
    func framesBehindTheRequest() async throws {
        try await EchoServer.run { server, _ in
            let raw = try await RawTCPClient.connect(port: server.port ?? 0)
            var request = "GET / HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            request += "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
            let frames = TestFrame.encode(opcode: 0x1, payload: Array("early".utf8))
                + TestFrame.encode(opcode: 0x2, payload: [1, 2, 3])
            try await raw.write(Array(request.utf8) + frames)
            try await waitUntil("two echoed frames") { raw.framesAfterHead.count >= 2 }
            #expect(raw.framesAfterHead.map(\.payload) == [Array("early".utf8), [1, 2, 3]])
            #expect(raw.framesAfterHead.map(\.opcode) == [0x1, 0x2])
            await raw.close()
        }
    }

    @Test("Pings from a raw client are answered with pongs carrying the same payload")
    func pingAnswered() async throws {
        try await EchoServer.run { server, _ in
            let raw = try await RawTCPClient.connect(port: server.port ?? 0)
            try await raw.upgrade()
            try await raw.write(TestFrame.encode(opcode: 0x9, payload: Array("abc".utf8)))
            try await waitUntil("a pong") { raw.framesAfterHead.contains { $0.opcode == 0xA } }
            #expect(raw.framesAfterHead.first { $0.opcode == 0xA }?.payload == Array("abc".utf8))
            await raw.close()
        }
    }
}
