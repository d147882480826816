/// A ``MessageTransport`` with a frame-level ping: a WebSocket's ping and pong control frames,
/// or the in-memory pair's equivalent.
///
/// The ``KeepaliveScheduler`` probes a transport with ``ping()`` when it has one, so that a
/// silent peer is noticed without any help from the protocol above.
///
/// ```swift
/// if let pingable = transport as? any PingableTransport {
///     try await pingable.ping()
/// }
/// ```
public protocol PingableTransport: MessageTransport {
    /// Sends a ping and returns once the peer's pong arrives.
    ///
    /// Any pong that arrives after the ping was sent answers it. Cancelling the task stops the
    /// wait (the ping stays sent).
    ///
    /// - Throws: ``TransportError`` with code ``TransportError/Code/closed`` when the transport
    ///   is closed or closes before the pong, ``TransportError/Code/cancelled`` when the task is
    ///   cancelled.
    func ping() async throws(TransportError)
}
