import RpcTransport

/// Where the transports get their TLS providers: the one place that picks an implementation.
enum TLSProviders {
    /// The provider for a client configuration.
    ///
    /// - Throws: ``TransportError`` with code ``TransportError/Code/tlsConfigurationInvalid``
    ///   when a certificate, key or trust root cannot be used.
    static func client(_ configuration: TLSClientConfiguration) throws(TransportError) -> any TLSClientProvider {
        try OpenSSLClientProvider(configuration: configuration)
    }

    /// The provider for a server configuration.
    ///
    /// - Throws: ``TransportError`` with code ``TransportError/Code/tlsConfigurationInvalid``
    ///   when a certificate, key or trust root cannot be used.
    static func server(_ configuration: TLSServerConfiguration) throws(TransportError) -> any TLSServerProvider {
        try OpenSSLServerProvider(configuration: configuration)
    }
}
