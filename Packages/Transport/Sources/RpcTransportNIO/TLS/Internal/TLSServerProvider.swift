import NIOCore
import RpcTransport

/// Makes the channel handlers that secure accepted connections, one per connection.
///
/// Built once per ``TLSServerConfiguration``; see ``TLSClientProvider`` for the role of the seam.
protocol TLSServerProvider: Sendable {
    /// A handler for one accepted connection, to be added to the child channel's pipeline
    /// before any handler that reads or writes plaintext.
    ///
    /// - Parameters:
    ///   - handshakeTimeout: how long the handshake may take once the channel is active; `nil`
    ///     for no limit of the handler's own.
    ///   - handshakePromise: completed with the handshake's outcome.
    func makeServerHandler(
        handshakeTimeout: TimeAmount?,
        handshakePromise: EventLoopPromise<TLSHandshakeCompleted>?
    ) throws(TransportError) -> any ChannelHandler
}

extension TLSServerProvider {
    /// A handler for one accepted connection, without a timeout or promise of its own.
    func makeServerHandler() throws(TransportError) -> any ChannelHandler {
        try makeServerHandler(handshakeTimeout: nil, handshakePromise: nil)
    }
}
