import NIOCore
import NIOEmbedded
import RpcTransport
import Testing

@testable import RpcTransportNIO

@Suite("WebSocket frame reader")
struct WebSocketFrameReaderTests {
    /// Messages of every length encoding, a ping between two fragments and a close, as one stream.
    static let stream: [UInt8] =
        TestFrame.encode(opcode: 0x1, payload: Array("hello".utf8))
        + TestFrame.encode(opcode: 0x2, payload: pattern(300))
        + TestFrame.encode(opcode: 0x1, payload: Array("frag".utf8), fin: false)
        + TestFrame.encode(opcode: 0x9, payload: [7, 7])
        + TestFrame.encode(opcode: 0x0, payload: Array("ment".utf8))
        + TestFrame.encode(opcode: 0x2, payload: pattern(70_000))
        + TestFrame.encode(opcode: 0x1, payload: [])

    /// The messages ``stream`` carries, in order.
    static let expected: [TransportMessage] = [
        .text("hello"), TransportMessage(kind: .binary, bytes: pattern(300)), .text("fragment"),
        TransportMessage(kind: .binary, bytes: pattern(70_000)), .text(""),
    ]

    static func pattern(_ count: Int) -> [UInt8] {
        (0 ..< count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
    }

    @Test("Frames arrive whole and in order however the bytes are split across reads", arguments: [1, 2, 3, 7, 125, 4096, 100_000])
    func splitReads(chunk: Int) throws {
        let (channel, transport) = try EmbeddedServerTransport.make()
        let recorder = EventRecorder(transport)
        channel.embeddedEventLoop.run()
        var offset = 0
        while offset < Self.stream.count {
            let end = min(offset + chunk, Self.stream.count)
            try channel.writeInbound(ByteBuffer(bytes: Self.stream[offset ..< end]))
            offset = end
        }
        channel.embeddedEventLoop.run()
        #expect(recorder.messages == Self.expected)
        #expect(recorder.closure == nil)
        // The ping between the fragments was answered with a pong carrying its payload.
        let written = try EmbeddedServerTransport.flushedWrites(channel).flatMap { $0 }
        #expect(written.map(\.opcode) == [0xA])
        #expect(written.first?.payload == [7, 7])
        _ = try? channel.finish()
    }

    @Test("A header that announces more than the limit is refused before any payload arrives")
    func limitCheckedOnTheHeader() {
        let error = Self.readFailure(
            Array(TestFrame.encode(opcode: 0x2, declaredLength: 1_001).prefix(8)), maxFrameSize: 1_000)
        #expect(error?.code == .messageTooLarge)
        #expect(error?.closeCode == .messageTooBig)
    }

    /// The error reading the first frame of `bytes` fails with; records an issue when a frame
    /// (or nothing, for want of bytes) is read instead.
    static func readFailure(_ bytes: [UInt8], maxFrameSize: Int) -> TransportError? {
        var reader = WebSocketFrameReader(maxFrameSize: maxFrameSize)
        var buffer = ByteBuffer(bytes: bytes)
        do {
            let frame = try reader.next(in: &buffer)
            Issue.record("read without an error: \(String(describing: frame))")
            return nil
        } catch {
            return error
        }
    }

    /// A frame whose header alone breaks the protocol.
    struct BrokenHeader: Sendable, CustomTestStringConvertible {
        var name: String
        var bytes: [UInt8]

        var testDescription: String { name }
    }

    static let brokenHeaderCases = [
        BrokenHeader(name: "a control frame longer than 125 bytes", bytes: TestFrame.encode(opcode: 0x9, payload: pattern(126))),
        BrokenHeader(name: "a fragmented close frame", bytes: TestFrame.encode(opcode: 0x8, payload: [3, 232], fin: false)),
        BrokenHeader(name: "a 64-bit length with its top bit set", bytes: TestFrame.encode(opcode: 0x2, declaredLength: 1 << 63)),
    ]

    @Test("Broken frame headers are protocol violations", arguments: brokenHeaderCases)
    func brokenHeaders(_ broken: BrokenHeader) {
        let error = Self.readFailure(broken.bytes, maxFrameSize: Int.max)
        #expect(error?.code == .protocolViolation, "\(broken.name)")
        #expect(error?.closeCode == .protocolError, "\(broken.name)")
    }

    @Test("An incomplete frame is left unread until the rest arrives")
    func incompleteFrames() throws {
        let bytes = TestFrame.encode(opcode: 0x1, payload: Array("a message of some length".utf8))
        var reader = WebSocketFrameReader(maxFrameSize: 1 << 20)
        for cut in 0 ..< bytes.count {
            var buffer = ByteBuffer(bytes: bytes[..<cut])
            #expect(try reader.next(in: &buffer) == nil)
            #expect(buffer.readerIndex == 0)
        }
        var whole = ByteBuffer(bytes: bytes)
        let frame = try #require(try reader.next(in: &whole))
        #expect(frame.fin && frame.opcode == 0x1 && !frame.rsv1 && !frame.otherReservedBits)
        let key = try #require(frame.maskingKey)
        let payload = frame.payload.withUnsafeReadableBytes { WebSocketMasking.array($0, key: key) }
        #expect(payload == Array("a message of some length".utf8))
        #expect(whole.readableBytes == 0)
    }

    @Test("A large frame arriving over many reads is gathered in one buffer, not copied again on every read")
    func largeFrameGatheredInPlace() throws {
        let payload = Self.pattern(200_000)
        let bytes = TestFrame.encode(opcode: 0x2, payload: payload)
        var reader = WebSocketFrameReader(maxFrameSize: 1 << 20)
        let allocator = ByteBufferAllocator()
        var storages: Set<UInt> = []
        var received: WebSocketFrameReader.Frame?
        var offset = 0
        while offset < bytes.count {
            let end = min(offset + 1_000, bytes.count)
            var buffer = ByteBuffer(bytes: bytes[offset ..< end])
            offset = end
            reader.prepend(to: &buffer)
            if offset > 1_000 {
                // From the second read on, the buffer read is the reader's own.
                storages.insert(buffer.withVeryUnsafeBytes { UInt(bitPattern: $0.baseAddress) })
            }
            if let frame = try reader.next(in: &buffer) {
                received = frame
            } else {
                reader.keepRemainder(of: consume buffer, allocator: allocator)
            }
        }
        // The first kept bytes went into a buffer with room for the whole frame, and every later
        // read was appended to that same buffer.
        #expect(storages.count == 1)
        let frame = try #require(received)
        let key = try #require(frame.maskingKey)
        #expect(frame.payload.withUnsafeReadableBytes { WebSocketMasking.array($0, key: key) } == payload)
    }
}
