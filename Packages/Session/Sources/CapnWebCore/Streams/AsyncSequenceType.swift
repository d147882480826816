/// A stream type a ``Ref`` can stand for: a `Ref<T>` whose `T` conforms is an `AsyncSequence`
/// of `T.Element`, read from the stream the call or member returns.
///
/// ```swift
/// let messages = Ref<AsyncThrowingStream<Message, any Error>>(session.api.chat.messages)
/// for try await message in messages { print(message) }
/// ```
///
/// `AsyncThrowingStream`, `AsyncStream` (of decodable elements) and ``RpcReadableStream`` (of
/// payloads) conform.
public protocol AsyncSequenceType {
    /// The type each chunk of the stream is decoded as.
    associatedtype Element: Decodable
}

extension AsyncThrowingStream: AsyncSequenceType where Element: Decodable, Failure == any Error {}

extension AsyncStream: AsyncSequenceType where Element: Decodable {}

extension RpcReadableStream: AsyncSequenceType {}

extension Ref: AsyncSequence where T: AsyncSequenceType {
    /// The stream's elements.
    public typealias Element = T.Element
    /// The iterator type.
    public typealias AsyncIterator = RefStreamIterator<T.Element>

    /// An iterator that sends the call or member read (if it has not left yet) on its first
    /// `next()`, then yields the chunks of the stream it returns, decoded as ``Element``.
    /// Leaving the loop, or cancelling the task that reads, stops reading and releases the
    /// stream.
    public func makeAsyncIterator() -> RefStreamIterator<T.Element> {
        RefStreamIterator(source: Ref<Any>(stub: stub))
    }
}
