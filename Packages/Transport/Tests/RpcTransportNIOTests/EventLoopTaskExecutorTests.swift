import NIOCore
import NIOPosix
import Testing
@_spi(RpcImplementation) import RpcTransport
@_spi(RpcImplementation) @testable import RpcTransportNIO

@Suite("Event-loop task executor and masking keys")
struct EventLoopTaskExecutorTests {
    @Test("code that prefers the executor runs its nonisolated async functions on the event loop")
    func runsOnTheLoop() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let executor = EventLoopTaskExecutor(loop)
        let onLoop = await withTaskExecutorPreference(executor) {
            await Self.isOnLoop(loop)
        }
        #expect(onLoop)
        #expect(await Self.isOnLoop(loop) == false)
        try await group.shutdownGracefully()
    }

    @Test("current is the calling loop's executor, made once per thread, and nil off any loop")
    func currentExecutor() async throws {
        #expect(EventLoopTaskExecutor.current == nil)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let (first, second) = try await loop.submit {
            (EventLoopTaskExecutor.current, EventLoopTaskExecutor.current)
        }.get()
        let firstExecutor = try #require(first)
        #expect(firstExecutor.eventLoop === loop)
        #expect(second === firstExecutor)
        try await group.shutdownGracefully()
    }

    @Test("a channel's loop thread is bound as the delivery executor, and no other thread is")
    func deliveryExecutorBinding() async throws {
        #expect(DeliveryExecutor.current == nil)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let (before, after) = try await loop.submit { () -> (Bool, (any TaskExecutor)?) in
            let before = DeliveryExecutor.isBound
            EventLoopTaskExecutor.bindCurrentLoop()
            return (before, DeliveryExecutor.current)
        }.get()
        #expect(before == false)
        let bound = try #require(after as? EventLoopTaskExecutor)
        #expect(bound.eventLoop === loop)
        #expect(DeliveryExecutor.current == nil)
        try await group.shutdownGracefully()
    }

    @Test("masking keys are not repeated across a refill of the pool")
    func maskingKeysVary() {
        let pool = MaskingKeyPool()
        let keys = (0 ..< MaskingKeyPool.batchSize * 3).map { _ in pool.next() }
        // 768 draws of 32 random bits: a repeat is possible but vanishingly rare (p < 1e-4).
        #expect(Set(keys).count >= keys.count - 1)
        #expect(keys.contains { $0 != keys[0] })
    }

    private static func isOnLoop(_ loop: any EventLoop) async -> Bool {
        loop.inEventLoop
    }
}
