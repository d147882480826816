/// The iterator of a stream-typed ``Ref`` (see ``AsyncSequenceType``): it runs in the task that
/// iterates, with no task of its own.
///
/// - Throws (from `next()`): what awaiting the ref throws, ``RpcError/invalidResponse(_:)`` when
///   the value is not a stream or a chunk does not decode as `Element`, or what the writer
///   aborted the stream with.
public struct RefStreamIterator<Element: Decodable>: AsyncIteratorProtocol {
    /// The ref to await on the first `next()`; `nil` once it has been.
    private var source: Ref<Any>?
    private var chunks: RpcReadableStream.AsyncIterator?

    init(source: Ref<Any>) {
        self.source = source
    }

    /// The next element, or `nil` once the stream has ended.
    public mutating func next() async throws -> Element? {
        if let source {
            self.source = nil
            guard case .readable(let stream) = try await source.payload() else {
                throw RpcError.invalidResponse("the value is not a stream")
            }
            chunks = stream.makeAsyncIterator()
        }
        guard let chunk = try await chunks?.next() else {
            chunks = nil
            return nil
        }
        return try chunk.decode(Element.self)
    }
}
