import NIOCore
import NIOEmbedded
import RpcTransport
import Testing

@testable import RpcTransportNIO

@Suite("Write coalescing")
struct WriteCoalescingTests {
    @Test("Messages of one tick leave together in one write when the tick ends")
    func gatheredUntilTheTickEnds() throws {
        let (channel, transport) = try EmbeddedServerTransport.make(writeCoalescingLimit: 4096)
        for index in 0 ..< 3 {
            try transport.enqueue(.text(String(repeating: "\(index)", count: 40)))
        }
        #expect(try EmbeddedServerTransport.flushedWrites(channel).isEmpty)
        channel.embeddedEventLoop.run()
        let writes = try EmbeddedServerTransport.flushedWrites(channel)
        #expect(writes.map(\.count) == [3])
        #expect(writes.first?.map(\.payload) == (0 ..< 3).map { Array(String(repeating: "\($0)", count: 40).utf8) })
        _ = try channel.finish(acceptAlreadyClosed: true)
    }

    @Test("Gathered messages are written at once when they reach the coalescing limit")
    func writtenAtTheLimit() throws {
        // Each frame is 42 bytes: the third one passes the 100-byte limit.
        let (channel, transport) = try EmbeddedServerTransport.make(writeCoalescingLimit: 100)
        for index in 0 ..< 2 {
            try transport.enqueue(.text(String(repeating: "\(index)", count: 40)))
        }
        #expect(try EmbeddedServerTransport.flushedWrites(channel).isEmpty)
        try transport.enqueue(.text(String(repeating: "2", count: 40)))
        #expect(try EmbeddedServerTransport.flushedWrites(channel).map(\.count) == [3])
        try transport.enqueue(.text(String(repeating: "3", count: 40)))
        #expect(try EmbeddedServerTransport.flushedWrites(channel).isEmpty)
        channel.embeddedEventLoop.run()
        let last = try EmbeddedServerTransport.flushedWrites(channel)
        #expect(last.map(\.count) == [1])
        #expect(last.first?.first?.payload == Array(String(repeating: "3", count: 40).utf8))
        _ = try channel.finish(acceptAlreadyClosed: true)
    }

    @Test("A buffer the channel still holds is never written over by the next batch")
    func heldBufferIsNotReused() throws {
        let (channel, transport) = try EmbeddedServerTransport.make(writeCoalescingLimit: 4096)
        // Three batches in three ticks; the embedded channel keeps every flushed buffer until
        // it is read, so none of them may be gathered into again.
        for index in 0 ..< 3 {
            try transport.enqueue(.text(String(repeating: "\(index)", count: 40)))
            channel.embeddedEventLoop.run()
        }
        let writes = try EmbeddedServerTransport.flushedWrites(channel)
        #expect(writes.map(\.count) == [1, 1, 1])
        #expect(writes.map { $0.first?.payload } == (0 ..< 3).map { Array(String(repeating: "\($0)", count: 40).utf8) })
        // Once the channel has let them go, later batches still arrive intact.
        for index in 3 ..< 5 {
            try transport.enqueue(.text(String(repeating: "\(index)", count: 40)))
            channel.embeddedEventLoop.run()
            let write = try EmbeddedServerTransport.flushedWrites(channel)
            #expect(write.first?.first?.payload == Array(String(repeating: "\(index)", count: 40).utf8))
        }
        _ = try channel.finish(acceptAlreadyClosed: true)
    }
}
