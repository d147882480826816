import NIOCore
import RpcTransport
import Testing

@testable import RpcTransportNIO

@Suite("WebSocket internals")
struct WebSocketInternalsTests {
    @Test(
        "Well-formed UTF-8 is accepted",
        arguments: [
            "", "plain ASCII that is longer than eight bytes", "é", "€", "𝄞", "mixed ascii é € 𝄞 and more ascii text",
        ]
    )
    func validUTF8(text: String) {
        #expect(UTF8Validation.isValid(Array(text.utf8)))
    }

    @Test(
        "Malformed UTF-8 is rejected",
        arguments: [
            [0x80], [0xC0, 0xAF], [0xC3], [0xE0, 0x80, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80],
            [0xF5, 0x80, 0x80, 0x80], [0xFF], [0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0xE2, 0x82],
        ] as [[UInt8]]
    )
    func invalidUTF8(bytes: [UInt8]) {
        #expect(!UTF8Validation.isValid(bytes))
    }

    @Test("Masking and unmasking are the same operation and match byte-by-byte XOR")
    func masking() {
        let key: (UInt8, UInt8, UInt8, UInt8) = (0xA1, 0xB2, 0xC3, 0xD4)
        let keyBytes: [UInt8] = [0xA1, 0xB2, 0xC3, 0xD4]
        let payload = (0 ..< 37).map { UInt8($0 * 7 % 256) }
        let masked = payload.withUnsafeBytes { WebSocketMasking.array($0, key: key) }
        #expect(masked == payload.enumerated().map { $0.element ^ keyBytes[$0.offset % 4] })
        let unmasked = masked.withUnsafeBytes { WebSocketMasking.array($0, key: key) }
        #expect(unmasked == payload)
        // Appended after bytes already there, the key starts again with the appended bytes.
        var joined: [UInt8] = [1, 2, 3]
        payload.withUnsafeBytes { WebSocketMasking.append($0, to: &joined, key: key) }
        #expect(joined == [1, 2, 3] + masked)
    }

    @Test("Frames are written with the shortest length encoding and a mask when asked")
    func frameHeaders() {
        let allocator = ByteBufferAllocator()
        for (size, headerSize) in [(0, 2), (125, 2), (126, 4), (65_535, 4), (65_536, 10)] {
            let payload = [UInt8](repeating: 0x42, count: size)
            let plain = WebSocketFrameWriter.frame(opcode: .binary, bytes: payload, masked: false, allocator: allocator)
            #expect(plain.readableBytes == headerSize + size)
            let masked = WebSocketFrameWriter.frame(opcode: .text, bytes: payload, masked: true, allocator: allocator)
            #expect(masked.readableBytes == headerSize + 4 + size)
            let parsed = TestFrame.parse(Array(masked.readableBytesView))
            #expect(parsed.first?.payload == payload)
            #expect(parsed.first?.opcode == 0x1)
        }
    }

    @Test("Close reasons are cut on a character boundary and unsendable codes carry no payload")
    func closePayloads() throws {
        #expect(WebSocketClosePayload.truncatedReason(String(repeating: "a", count: 200)).utf8.count == 123)
        #expect(WebSocketClosePayload.truncatedReason(String(repeating: "€", count: 50)) == String(repeating: "€", count: 41))
        #expect(WebSocketClosePayload.encode(code: .abnormal, reason: "x").isEmpty)
        #expect(WebSocketClosePayload.encode(code: .normal, reason: "ok") == [0x03, 0xE8, 0x6F, 0x6B])
        #expect(try WebSocketClosePayload.parse([]).code == .noStatus)
        #expect(throws: TransportError.self) { try WebSocketClosePayload.parse([0x03]) }
        #expect(throws: TransportError.self) { try WebSocketClosePayload.parse([0x03, 0xEE]) }
        #expect(throws: TransportError.self) { try WebSocketClosePayload.parse([0x03, 0xE8, 0xFF]) }
    }

    @Test("URLs are split into scheme, target, request target and Host header")
    func endpointURLs() throws {
        let plain = try EndpointURL.parse("ws://example.com/rpc?x=1#frag", schemes: [.ws, .wss])
        #expect(plain.target == .dns(host: "example.com", port: 80))
        #expect(plain.requestTarget == "/rpc?x=1")
        #expect(plain.hostHeader == "example.com")
        let secure = try EndpointURL.parse("WSS://user@[::1]:8443", schemes: [.ws, .wss])
        #expect(secure.scheme == .wss)
        #expect(secure.target == .ipv6(address: "::1", port: 8443))
        #expect(secure.requestTarget == "/")
        #expect(secure.hostHeader == "[::1]:8443")
        let query = try EndpointURL.parse("http://10.0.0.1?a", schemes: [.http])
        #expect(query.target == .ipv4(address: "10.0.0.1", port: 80))
        #expect(query.requestTarget == "/?a")
        #expect(throws: TransportError.self) { try EndpointURL.parse("https://x/", schemes: [.http]) }
    }

    @Test("Batch bodies join messages with newlines and tolerate one trailing newline")
    func batchBodies() {
        let allocator = ByteBufferAllocator()
        let body = HTTPBatchBody.encode([.text("a"), .text(""), .text("c")], allocator: allocator)
        #expect(String(buffer: body) == "a\n\nc")
        #expect(HTTPBatchBody.decode(body) == [.text("a"), .text(""), .text("c")])
        #expect(HTTPBatchBody.decode(allocator.buffer(string: "x\n")) == [.text("x")])
        #expect(HTTPBatchBody.decode(allocator.buffer(string: "")) == [])
        #expect(HTTPBatchBody.decode(allocator.buffer(string: "\n")) == [])
        #expect(HTTPBatchBody.decode(allocator.buffer(bytes: [0xFF])) == nil)
        #expect(HTTPBatchBody.encode([], allocator: allocator).readableBytes == 0)
    }
}
