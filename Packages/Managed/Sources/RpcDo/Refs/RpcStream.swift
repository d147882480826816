/// A remote stream read where it is named: a member holding a stream (`chat.messages`), sent
/// when the first element is asked for and read as an `AsyncSequence` of decoded elements.
///
/// ```swift
/// let chat: RpcRef<Any> = client.api.chat.join(room: "general")
/// for try await message: ChatMessage in chat.messages {
///     print(message.text)
/// }
/// ```
///
/// Swift's operators apply as to any async sequence
/// (`chat.messages.filter { (m: ChatMessage) in m.isUrgent }.prefix(10)`). Each iteration sends
/// the member read again and reads a stream of its own. Stopping early (a `break`, a cancelled
/// task) ends the stream here; the server learns it at its next write, which is rejected, and
/// closes its end.
public struct RpcStream<Element: Decodable & Sendable>: AsyncSequence, Sendable {
    /// What reading fails with.
    public typealias Failure = any Error

    let core: ClientCore
    let expression: RefExpression
    let options: RefOptions

    /// The expression the stream is read from, e.g. `.chat.join(room: "general").messages`.
    public var expressionString: String {
        expression.text()
    }

    /// Reads the stream: the first ``AsyncIterator/next()`` sends the chain.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(source: self)
    }

    /// Reads one stream.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let source: RpcStream
        var elements: AsyncThrowingStream<Element, any Error>.AsyncIterator?

        /// The next element; the first call sends the chain.
        ///
        /// - Throws: ``RpcError`` when the chain fails or does not give a stream, or what the
        ///   stream ends with.
        public mutating func next() async throws -> Element? {
            if elements == nil {
                let stream = try await source.core.stream(source.expression, options: source.options, as: Element.self)
                elements = stream.makeAsyncIterator()
            }
            return try await elements?.next()
        }
    }
}
