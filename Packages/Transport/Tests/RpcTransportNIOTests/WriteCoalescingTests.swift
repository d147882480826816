import NIOCore
import NIOEmbedded
import RpcTransport
import Testing

@testable import RpcTransportNIO

@Suite("Write coalescing")
struct WriteCoalescingTests {
    /// A server-side transport on an active embedded channel, whose flushed bytes the test reads.
    private static func transport(limit: Int) throws -> (EmbeddedChannel, WebSocketTransport) {
        let channel = EmbeddedChannel()
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9)).wait()
        let settings = WebSocketConnectionSettings(
            role: .server,
            maxFrameSize: 1 << 20,
            maxMessageSize: 1 << 20,
            maxOutboundFrameSize: 1 << 20,
            writeCoalescingLimit: limit,
            outboundBufferLimit: 1 << 20,
            keepalive: nil,
            closeTimeout: .seconds(1)
        )
        let transport = try WebSocketTransport.install(on: channel, settings: settings, subprotocol: nil, codec: nil)
        return (channel, transport)
    }

    /// The frames of every buffer flushed so far, one array per buffer.
    private static func flushedWrites(_ channel: EmbeddedChannel) throws -> [[TestFrame]] {
        var writes: [[TestFrame]] = []
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) {
            writes.append(TestFrame.parse(Array(buffer.readableBytesView)))
        }
        return writes
    }

    @Test("Messages of one tick leave together in one write when the tick ends")
    func gatheredUntilTheTickEnds() throws {
        let (channel, transport) = try Self.transport(limit: 4096)
        for index in 0 ..< 3 {
            try transport.enqueue(.text(String(repeating: "\(index)", count: 40)))
        }
        #expect(try Self.flushedWrites(channel).isEmpty)
        channel.embeddedEventLoop.run()
        let writes = try Self.flushedWrites(channel)
        #expect(writes.map(\.count) == [3])
        #expect(writes.first?.map(\.payload) == (0 ..< 3).map { Array(String(repeating: "\($0)", count: 40).utf8) })
        _ = try channel.finish(acceptAlreadyClosed: true)
    }

    @Test("Gathered messages are written at once when they reach the coalescing limit")
    func writtenAtTheLimit() throws {
        // Each frame is 42 bytes: the third one passes the 100-byte limit.
        let (channel, transport) = try Self.transport(limit: 100)
        for index in 0 ..< 2 {
            try transport.enqueue(.text(String(repeating: "\(index)", count: 40)))
        }
        #expect(try Self.flushedWrites(channel).isEmpty)
        try transport.enqueue(.text(String(repeating: "2", count: 40)))
        #expect(try Self.flushedWrites(channel).map(\.count) == [3])
        try transport.enqueue(.text(String(repeating: "3", count: 40)))
        #expect(try Self.flushedWrites(channel).isEmpty)
        channel.embeddedEventLoop.run()
        let last = try Self.flushedWrites(channel)
        #expect(last.map(\.count) == [1])
        #expect(last.first?.first?.payload == Array(String(repeating: "3", count: 40).utf8))
        _ = try channel.finish(acceptAlreadyClosed: true)
    }

    @Test("A buffer the channel still holds is never written over by the next batch")
    func heldBufferIsNotReused() throws {
        let (channel, transport) = try Self.transport(limit: 4096)
        // Three batches in three ticks; the embedded channel keeps every flushed buffer until
        // it is read, so none of them may be gathered into again.
        for index in 0 ..< 3 {
            try transport.enqueue(.text(String(repeating: "\(index)", count: 40)))
            channel.embeddedEventLoop.run()
        }
        let writes = try Self.flushedWrites(channel)
        #expect(writes.map(\.count) == [1, 1, 1])
        #expect(writes.map { $0.first?.payload } == (0 ..< 3).map { Array(String(repeating: "\($0)", count: 40).utf8) })
        // Once the channel has let them go, later batches still arrive intact.
        for index in 3 ..< 5 {
            try transport.enqueue(.text(String(repeating: "\(index)", count: 40)))
            channel.embeddedEventLoop.run()
            let write = try Self.flushedWrites(channel)
            #expect(write.first?.first?.payload == Array(String(repeating: "\(index)", count: 40).utf8))
        }
        _ = try channel.finish(acceptAlreadyClosed: true)
    }
}
