/// A request-response exchange of a whole batch of messages, such as one HTTP POST.
public protocol BatchTransport: Sendable {
    /// Sends `messages` in one request and returns the messages of the response, in order.
    ///
    /// - Throws: ``TransportError``: ``TransportError/Code/httpStatus`` for an answer other than
    ///   200, ``TransportError/Code/requestTooLarge`` for 413, or a connection failure.
    func exchange(_ messages: [TransportMessage]) async throws(TransportError) -> [TransportMessage]
}
