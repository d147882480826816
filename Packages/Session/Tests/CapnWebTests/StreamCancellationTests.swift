import RpcTransportTesting
import Testing
import CapnWebSocketTestSupport
import CapnWeb

/// A main object whose `ticks()` returns an endless readable stream and records when the
/// stream's producer is told that nobody reads any more.
final class TickerTarget: RpcTarget {
    let terminated = Recorder<Bool>()

    func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
        guard method == "ticks" else { throw RpcErrorValue.notAFunction(method) }
        let (stream, continuation) = RpcReadableStream.makeStream()
        let producer = Task {
            var tick: Int64 = 0
            while !Task.isCancelled {
                if case .terminated = continuation.yield(.integer(tick)) { return }
                tick += 1
                try? await Task.sleep(for: .milliseconds(10))
            }
        }
        let terminated = self.terminated
        continuation.onTermination = { _ in
            terminated.append(true)
            producer.cancel()
        }
        return .readable(stream)
    }
}

@Suite("Stream cancellation")
struct StreamCancellationTests {
    @Test("a client that stops reading a server's stream stops the server's producer")
    func readerGoneStopsProducer() async throws {
        let ticker = TickerTarget()
        try await withSocketPeers(main: { _ in ticker }) { peers in
            let session = try await peers.connect()
            do {
                let reader = Task {
                    let stream: AsyncThrowingStream<Int, any Error> = try await session.api.ticks()
                    var seen: [Int] = []
                    for try await tick in stream {
                        seen.append(tick)
                        if seen.count == 3 { break }
                    }
                    return seen
                }
                let seen = try await reader.value
                #expect(seen == [0, 1, 2])
                #expect(await waitUntil(timeout: .seconds(5)) { ticker.terminated.all == [true] })
                await peers.expectSettled(session)
            }
        }
    }
}
