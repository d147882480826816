import CapnWebMacros
import CapnWebTesting
import Testing
import CapnWebSocketTestSupport

/// A typed client of ``Ticker``.
@RpcProtocol
protocol TickerAPI {
    func ticks(_ count: Int) async throws -> AsyncThrowingStream<Int, any Error>
}

/// An `@Rpc` object whose method returns an `AsyncSequence`.
@Rpc final class Ticker {
    func ticks(_ count: Int) -> AsyncStream<Int> {
        AsyncStream { continuation in
            for tick in 0..<count { continuation.yield(tick) }
            continuation.finish()
        }
    }
}

@Suite("@Rpc streams")
struct RpcStreamTests {
    @Test("an AsyncSequence returned by an @Rpc method reaches a typed client as a stream of its elements")
    func asyncSequenceResult() async throws {
        try await withSocketSession(as: TickerAPIStub.self, main: { _ in Ticker() }) { session, _ in
            var received: [Int] = []
            for try await tick in try await session.api.ticks(5) {
                received.append(tick)
            }
            #expect(received == [0, 1, 2, 3, 4])
        }
    }
}
