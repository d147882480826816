public import NIOCore
public import RpcTransport

/// Makes the TLS channel handlers of this package for pipelines built by hand.
///
/// Not part of the supported API: it exists so that benchmarks can put exactly the TLS the
/// transport uses in front of a bare SwiftNIO pipeline. Applications configure TLS through
/// ``WebSocketClientConfiguration/tls``, ``HTTPBatchClientConfiguration/tls`` and
/// ``TransportServerConfiguration/tls`` instead.
@_spi(ChannelHandlers)
public enum TLSChannelHandlers {
    /// A client-side TLS handler; add it first in the pipeline.
    ///
    /// - Parameters:
    ///   - configuration: The client's TLS settings.
    ///   - serverHostname: The name sent as SNI and verified against the certificate.
    /// - Throws: ``TransportError`` when a certificate, key or trust root cannot be loaded.
    public static func clientHandler(
        _ configuration: TLSClientConfiguration,
        serverHostname: String?
    ) throws(TransportError) -> any ChannelHandler {
        try TLSProviders.client(configuration).makeClientHandler(serverHostname: serverHostname)
    }

    /// A server-side TLS handler; add it first in the pipeline of each accepted connection.
    ///
    /// - Parameter configuration: The server's TLS settings.
    /// - Throws: ``TransportError`` when the certificate chain or key cannot be loaded.
    public static func serverHandler(_ configuration: TLSServerConfiguration) throws(TransportError) -> any ChannelHandler {
        try TLSProviders.server(configuration).makeServerHandler()
    }
}
