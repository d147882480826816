import NIOCore
import RpcTransport

/// Makes the channel handlers that secure client connections, one per connection.
///
/// The seam between the transports and a TLS implementation: a provider is built once per
/// ``TLSClientConfiguration`` (loading certificates, keys and roots up front, so configuration
/// errors surface before any connection), then asked for a fresh handler per connection.
/// ``OpenSSLClientProvider`` is the implementation on every platform today; a
/// Network.framework one can conform later without the transports changing.
protocol TLSClientProvider: Sendable {
    /// A handler for one client connection, to be added to the channel's pipeline before any
    /// handler that reads or writes plaintext.
    ///
    /// - Parameters:
    ///   - serverHostname: the host of the connection's target, used for server name indication
    ///     and hostname verification unless the configuration names a server itself. An IP
    ///     literal (IPv6 with or without brackets) is verified as an address and not sent as SNI.
    ///   - handshakeTimeout: how long the handshake may take once the channel is active; `nil`
    ///     for no limit of the handler's own.
    ///   - handshakePromise: completed with the handshake's outcome: a ``TLSHandshakeCompleted``,
    ///     or the ``TransportError`` the connection failed with.
    /// - Throws: ``TransportError`` when no usable server name is available for verification,
    ///   or the session cannot be created.
    func makeClientHandler(
        serverHostname: String?,
        handshakeTimeout: TimeAmount?,
        handshakePromise: EventLoopPromise<TLSHandshakeCompleted>?
    ) throws(TransportError) -> any ChannelHandler
}

extension TLSClientProvider {
    /// A handler for one client connection, without a timeout or promise of its own: the
    /// outcome is reported through ``TLSHandshakeCompleted`` and `errorCaught`.
    func makeClientHandler(serverHostname: String?) throws(TransportError) -> any ChannelHandler {
        try makeClientHandler(serverHostname: serverHostname, handshakeTimeout: nil, handshakePromise: nil)
    }
}
