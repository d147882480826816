import NIOCore
import NIOEmbedded
import RpcTransport
import Synchronization
import Testing

@testable import RpcTransportNIO

/// Counts the flushes that reach the head of the pipeline.
private final class FlushCounter: ChannelOutboundHandler, Sendable {
    typealias OutboundIn = ByteBuffer

    let flushes = Atomic<Int>(0)

    func flush(context: ChannelHandlerContext) {
        flushes.add(1, ordering: .relaxed)
        context.flush()
    }
}

/// What a test's handler and burst-end work saw, in order.
private final class Log: Sendable {
    private let entries = Mutex<[String]>([])

    func append(_ entry: String) {
        entries.withLock { $0.append(entry) }
    }

    var all: [String] {
        entries.withLock { $0 }
    }
}

@Suite("Work after an inbound burst")
struct InboundBurstTests {
    /// A masked client text frame carrying `text`.
    private static func frame(_ text: String) -> ByteBuffer {
        ByteBuffer(bytes: TestFrame.encode(opcode: 0x1, payload: Array(text.utf8)))
    }

    /// A transport on an embedded channel with a flush counter at the head of its pipeline.
    private static func makeCounted() throws -> (EmbeddedChannel, WebSocketTransport, FlushCounter) {
        let (channel, transport) = try EmbeddedServerTransport.make()
        let counter = FlushCounter()
        try channel.pipeline.syncOperations.addHandler(counter, position: .first)
        return (channel, transport, counter)
    }

    @Test("work asked for while a burst is delivered runs after the replies it caused are flushed")
    func runsAfterTheReplyIsFlushed() throws {
        let (channel, transport, counter) = try Self.makeCounted()
        let log = Log()
        transport.start { event in
            guard case .message(let message) = event else { return }
            log.append("message")
            try? transport.enqueue(message)
            transport.afterInboundBurst {
                log.append("after, flushes: \(counter.flushes.load(ordering: .relaxed))")
            }
        }
        channel.embeddedEventLoop.run()
        try channel.writeInbound(Self.frame("one"))
        // The burst has ended but its reply is flushed from a task: the work waits for it.
        #expect(log.all == ["message"])
        channel.embeddedEventLoop.run()
        #expect(log.all == ["message", "after, flushes: 1"])
        #expect(try EmbeddedServerTransport.flushedWrites(channel).flatMap { $0 }.map(\.payload) == [Array("one".utf8)])
        _ = try? channel.finish()
    }

    @Test("a burst that writes nothing runs its work as it ends, and work asked for outside a burst runs at once")
    func runsAtOnceWithoutWrites() throws {
        let (channel, transport, counter) = try Self.makeCounted()
        let log = Log()
        transport.start { event in
            guard case .message = event else { return }
            log.append("message")
            transport.afterInboundBurst { log.append("after") }
            log.append("handled")
        }
        channel.embeddedEventLoop.run()
        try channel.writeInbound(Self.frame("one"))
        #expect(log.all == ["message", "handled", "after"])
        transport.afterInboundBurst { log.append("outside") }
        #expect(log.all == ["message", "handled", "after", "outside"])
        #expect(counter.flushes.load(ordering: .relaxed) == 0)
        _ = try? channel.finish()
    }

    @Test("the work every message of a burst asks for runs after the whole burst, in order")
    func oneBurstManyMessages() throws {
        let (channel, transport, _) = try Self.makeCounted()
        let log = Log()
        transport.start { event in
            guard case .message(let message) = event else { return }
            let text = String(decoding: message.bytes, as: UTF8.self)
            log.append(text)
            try? transport.enqueue(message)
            transport.afterInboundBurst { log.append("after \(text)") }
        }
        channel.embeddedEventLoop.run()
        var bytes = Self.frame("a")
        var second = Self.frame("b")
        bytes.writeBuffer(&second)
        try channel.writeInbound(bytes)
        channel.embeddedEventLoop.run()
        #expect(log.all == ["a", "b", "after a", "after b"])
        #expect(try EmbeddedServerTransport.flushedWrites(channel).map(\.count) == [2])
        _ = try? channel.finish()
    }

    @Test("work still waiting when the connection closes runs before the close is reported")
    func runsBeforeTheClose() throws {
        let (channel, transport, _) = try Self.makeCounted()
        let log = Log()
        transport.start { event in
            switch event {
            case .message(let message):
                try? transport.enqueue(message)
                transport.afterInboundBurst { log.append("after") }
            case .closed:
                log.append("closed")
            }
        }
        channel.embeddedEventLoop.run()
        try channel.writeInbound(Self.frame("one"))
        #expect(log.all.isEmpty)
        channel.pipeline.fireChannelInactive()
        #expect(log.all == ["after", "closed"])
        _ = try? channel.finish()
    }
}
