import NIOCore
import RpcTransport

/// The OpenSSL implementation of ``TLSServerProvider``: one `SSL_CTX` per configuration.
struct OpenSSLServerProvider: TLSServerProvider {
    /// The context every connection is created from.
    let context: OpenSSLContext

    /// Builds the context.
    ///
    /// - Throws: ``TransportError`` with code ``TransportError/Code/tlsConfigurationInvalid``
    ///   naming the file or setting that could not be used, with OpenSSL's reason.
    init(configuration: TLSServerConfiguration) throws(TransportError) {
        self.context = try OpenSSLContext(server: configuration)
    }

    func makeServerHandler(
        handshakeTimeout: TimeAmount?,
        handshakePromise: EventLoopPromise<TLSHandshakeCompleted>?
    ) throws(TransportError) -> any ChannelHandler {
        OpenSSLHandler(
            connection: try OpenSSLConnection(context: context, role: .server),
            role: .server,
            handshakeTimeout: handshakeTimeout,
            handshakePromise: handshakePromise
        )
    }
}
