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

    /// A started transport on an embedded channel, with a flush counter at the head of its
    /// pipeline, that hands each inbound message to `onMessage` and reports its close to
    /// `onClose`.
    private static func start(
        counting counter: FlushCounter = FlushCounter(),
        onClose: @escaping @Sendable () -> Void = {},
        onMessage: @escaping @Sendable (TransportMessage, WebSocketTransport) -> Void
    ) throws -> (EmbeddedChannel, WebSocketTransport) {
        let (channel, transport) = try EmbeddedServerTransport.make()
        try channel.pipeline.syncOperations.addHandler(counter, position: .first)
        transport.start { event in
            switch event {
            case .message(let message): onMessage(message, transport)
            case .closed: onClose()
            }
        }
        channel.embeddedEventLoop.run()
        return (channel, transport)
    }

    @Test("work asked for while a burst is delivered runs after the replies it caused are flushed")
    func runsAfterTheReplyIsFlushed() throws {
        let log = Log()
        let counter = FlushCounter()
        let (channel, _) = try Self.start(counting: counter) { message, transport in
            log.append("message")
            try? transport.enqueue(message)
            transport.afterInboundBurst {
                log.append("after, flushes: \(counter.flushes.load(ordering: .relaxed))")
            }
        }
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
        let log = Log()
        let counter = FlushCounter()
        let (channel, transport) = try Self.start(counting: counter) { _, transport in
            log.append("message")
            transport.afterInboundBurst { log.append("after") }
            log.append("handled")
        }
        try channel.writeInbound(Self.frame("one"))
        #expect(log.all == ["message", "handled", "after"])
        transport.afterInboundBurst { log.append("outside") }
        #expect(log.all == ["message", "handled", "after", "outside"])
        #expect(counter.flushes.load(ordering: .relaxed) == 0)
        _ = try? channel.finish()
    }

    @Test("the work every message of a burst asks for runs after the whole burst, in order")
    func oneBurstManyMessages() throws {
        let log = Log()
        let (channel, _) = try Self.start { message, transport in
            let text = String(decoding: message.bytes, as: UTF8.self)
            log.append(text)
            try? transport.enqueue(message)
            transport.afterInboundBurst { log.append("after \(text)") }
        }
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
        let log = Log()
        let (channel, _) = try Self.start(onClose: { log.append("closed") }) { message, transport in
            try? transport.enqueue(message)
            transport.afterInboundBurst { log.append("after") }
        }
        try channel.writeInbound(Self.frame("one"))
        #expect(log.all.isEmpty)
        channel.pipeline.fireChannelInactive()
        #expect(log.all == ["after", "closed"])
        _ = try? channel.finish()
    }
}
