/// The inbound messages of a ``MessageTransport`` as an asynchronous sequence.
///
/// It buffers what arrives while nobody iterates, ends when the peer closes cleanly and throws
/// the ``TransportError`` when the connection fails. Make it with
/// ``MessageTransport/inboundMessages()``; iterate it once.
public struct TransportInbound: AsyncSequence, Sendable {
    /// Inbound messages.
    public typealias Element = TransportMessage
    /// The error that ends a failed connection.
    public typealias Failure = TransportError

    private let stream: AsyncThrowingStream<TransportMessage, any Error>

    init(transport: some MessageTransport) {
        let (stream, continuation) = AsyncThrowingStream<TransportMessage, any Error>.makeStream()
        self.stream = stream
        transport.start { event in
            switch event {
            case .message(let message):
                continuation.yield(message)
            case .closed(let closure):
                if let error = closure.error {
                    continuation.finish(throwing: error)
                } else {
                    continuation.finish()
                }
            }
        }
    }

    /// Creates the iterator.
    public func makeAsyncIterator() -> Iterator {
        Iterator(base: stream.makeAsyncIterator())
    }

    /// Iterates the inbound messages.
    public struct Iterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<TransportMessage, any Error>.Iterator

        /// The next message, `nil` after a clean close.
        ///
        /// - Throws: The ``TransportError`` that ended the connection.
        public mutating func next() async throws(TransportError) -> TransportMessage? {
            do {
                return try await base.next()
            } catch let error as TransportError {
                throw error
            } catch {
                throw TransportError(code: .cancelled, message: "iteration was cancelled", cause: error)
            }
        }

        /// The next message, on the caller's isolation.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(TransportError) -> TransportMessage? {
            do {
                return try await base.next(isolation: actor)
            } catch let error as TransportError {
                throw error
            } catch {
                throw TransportError(code: .cancelled, message: "iteration was cancelled", cause: error)
            }
        }
    }
}
