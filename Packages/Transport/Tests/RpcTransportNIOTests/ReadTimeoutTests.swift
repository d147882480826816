import NIOCore
import NIOEmbedded
import RpcTesting
import Testing
@testable import RpcTransportNIO

@Suite("Stalled frames")
struct ReadTimeoutTests {
    /// A started server-side transport on an embedded channel whose frames must arrive within
    /// 500 ms, recording how it closed.
    private static func start() throws -> (EmbeddedChannel, Recorder<TransportClosure>) {
        let (channel, transport) = try EmbeddedServerTransport.make(frameReadTimeout: .milliseconds(500))
        let closure = Recorder<TransportClosure>()
        transport.start { event in
            if case .closed(let ended) = event { closure.append(ended) }
        }
        channel.embeddedEventLoop.run()
        return (channel, closure)
    }

    @Test("a frame that stops half way fails the connection with readTimeout and close code 1008 at the timeout")
    func halfFrameTimesOut() throws {
        let (channel, closure) = try Self.start()
        let frame = TestFrame.encode(opcode: 0x1, payload: Array(repeating: 0x61, count: 100))
        try channel.writeInbound(ByteBuffer(bytes: frame.prefix(40)))
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(499))
        #expect(try EmbeddedServerTransport.flushedWrites(channel).flatMap { $0 }.isEmpty)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(2))
        let sent = try EmbeddedServerTransport.flushedWrites(channel).flatMap { $0 }
        #expect(sent.map(\.closeCode) == [1008])
        channel.embeddedEventLoop.advanceTime(by: .seconds(2))
        #expect(closure.all.map { $0.error?.code } == [.readTimeout])
    }

    @Test("the timeout runs from the start of a frame, so trickling its bytes does not extend it")
    func tricklingDoesNotExtend() throws {
        let (channel, _) = try Self.start()
        let frame = TestFrame.encode(opcode: 0x1, payload: Array(repeating: 0x61, count: 100))
        for index in 0..<5 {
            try channel.writeInbound(ByteBuffer(bytes: frame[(index * 10)..<(index * 10 + 10)]))
            channel.embeddedEventLoop.advanceTime(by: .milliseconds(110))
        }
        let sent = try EmbeddedServerTransport.flushedWrites(channel).flatMap { $0 }
        #expect(sent.map(\.closeCode) == [1008])
    }

    @Test("whole frames, and frames completed across reads within the timeout, keep the connection open")
    func completeFramesPass() throws {
        let (channel, closure) = try Self.start()
        let frame = TestFrame.encode(opcode: 0x1, payload: Array("hello".utf8))
        for _ in 0..<3 {
            try channel.writeInbound(ByteBuffer(bytes: frame.prefix(4)))
            channel.embeddedEventLoop.advanceTime(by: .milliseconds(400))
            try channel.writeInbound(ByteBuffer(bytes: frame.dropFirst(4)))
            channel.embeddedEventLoop.advanceTime(by: .milliseconds(400))
        }
        channel.embeddedEventLoop.advanceTime(by: .seconds(5))
        #expect(try EmbeddedServerTransport.flushedWrites(channel).flatMap { $0 }.allSatisfy { $0.closeCode == nil })
        #expect(closure.all.isEmpty)
    }
}
