/// A readable stream of values: produced locally and sent to the peer, or received from the
/// peer and read here.
///
/// A stream can be read once. Reading it as an `AsyncSequence` yields each chunk in order and
/// ends when the writer closes it; it throws when the writer aborts or the session ends.
///
/// ```swift
/// let (stream, continuation) = RpcReadableStream.makeStream()
/// continuation.yield(1); continuation.yield(2); continuation.finish()
/// let chunks: [Int] = try await session.api.readAll(stream)
/// ```
public final class RpcReadableStream: AsyncSequence, Sendable {
    /// The chunk type: any value.
    public typealias Element = RpcPayload
    /// The iterator type.
    public typealias AsyncIterator = AsyncThrowingStream<RpcPayload, any Error>.AsyncIterator

    let chunks: AsyncThrowingStream<RpcPayload, any Error>

    /// Wraps a stream of chunks.
    public init(_ chunks: AsyncThrowingStream<RpcPayload, any Error>) {
        self.chunks = chunks
    }

    /// A stream that yields `elements` and ends.
    public convenience init(elements: [RpcPayload]) {
        let (stream, continuation) = AsyncThrowingStream<RpcPayload, any Error>.makeStream()
        for element in elements { continuation.yield(element) }
        continuation.finish()
        self.init(stream)
    }

    /// A stream together with the continuation that feeds it.
    public static func makeStream() -> (stream: RpcReadableStream, continuation: AsyncThrowingStream<RpcPayload, any Error>.Continuation) {
        let (stream, continuation) = AsyncThrowingStream<RpcPayload, any Error>.makeStream()
        return (RpcReadableStream(stream), continuation)
    }

    /// An iterator over the chunks. Only the first reader sees them.
    public func makeAsyncIterator() -> AsyncIterator {
        chunks.makeAsyncIterator()
    }

    /// The chunks decoded as `type`, read and decoded in the task that reads them (no task of
    /// its own reads ahead): a reader that stops, or is cancelled, stops the reading with it.
    public func decoded<T: Decodable & Sendable>(as type: T.Type = T.self) -> AsyncThrowingStream<T, any Error> {
        let reader = PulledSequence(chunks) { chunk in try chunk.decode(T.self) }
        return AsyncThrowingStream(unfolding: { try await reader.next() })
    }
}
