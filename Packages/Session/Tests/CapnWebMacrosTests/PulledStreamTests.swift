import CapnWebMacros
import Synchronization
import Testing

/// A sequence sent as a stream, and a stream read decoded, are read in the task that reads
/// them: nothing runs ahead of the reader, and nothing goes on reading once it stops.
@Suite("Streams read in the reading task")
struct PulledStreamTests {
    @Test("an AsyncSequence sent as a stream is read only as far as its stream is read")
    func sequenceReadOnDemand() async throws {
        let counter = ElementCounter()
        guard case .readable(let stream) = try _capnwebEncode(CountingSequence(counter: counter)) else {
            Issue.record("an AsyncSequence was not encoded as a readable stream")
            return
        }
        #expect(counter.produced == 0)
        var chunks = stream.makeAsyncIterator()
        #expect(try await chunks.next()?.decode(Int.self) == 0)
        #expect(try await chunks.next()?.decode(Int.self) == 1)
        #expect(counter.produced == 2)
    }

    @Test("a stream read decoded is read only as far as the decoded stream is read")
    func decodedReadOnDemand() async throws {
        let counter = ElementCounter()
        let raw = RpcReadableStream(AsyncThrowingStream(unfolding: { () async throws -> RpcPayload? in
            try RpcPayload(encoding: counter.next())
        }))
        var values = raw.decoded(as: Int.self).makeAsyncIterator()
        #expect(counter.produced == 0)
        #expect(try await values.next() == 0)
        #expect(counter.produced == 1)
    }
}

/// How many elements a ``CountingSequence`` has produced.
private final class ElementCounter: Sendable {
    private let count = Atomic<Int>(0)

    var produced: Int { count.load(ordering: .sequentiallyConsistent) }

    func next() -> Int {
        count.wrappingAdd(1, ordering: .sequentiallyConsistent).oldValue
    }
}

/// 0, 1, 2, … without end, counting each element it produces.
private struct CountingSequence: AsyncSequence, Sendable {
    let counter: ElementCounter

    struct AsyncIterator: AsyncIteratorProtocol {
        let counter: ElementCounter

        mutating func next() async -> Int? {
            counter.next()
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(counter: counter)
    }
}
