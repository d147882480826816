import NIOCore
import RpcTransport

/// The OpenSSL implementation of ``TLSClientProvider``: one `SSL_CTX` per configuration.
struct OpenSSLClientProvider: TLSClientProvider {
    /// The context every connection is created from.
    let context: OpenSSLContext
    private let configuration: TLSClientConfiguration

    /// Builds the context.
    ///
    /// - Throws: ``TransportError`` with code ``TransportError/Code/tlsConfigurationInvalid``
    ///   naming the file or setting that could not be used, with OpenSSL's reason.
    init(configuration: TLSClientConfiguration) throws(TransportError) {
        self.context = try OpenSSLContext(client: configuration)
        self.configuration = configuration
    }

    func makeClientHandler(
        serverHostname: String?,
        handshakeTimeout: TimeAmount?,
        handshakePromise: EventLoopPromise<TLSHandshakeCompleted>?
    ) throws(TransportError) -> any ChannelHandler {
        let name = Self.normalizedName(configuration.serverName) ?? Self.normalizedName(serverHostname)
        let verifyName: Bool
        switch configuration.serverCertificateVerification.mode {
        case .fullVerification: verifyName = true
        case .noHostnameVerification, .noVerification: verifyName = false
        }

        let connection = try OpenSSLConnection(context: context, role: .client)
        if let name {
            try connection.setServerName(name, verify: verifyName)
        } else if verifyName {
            throw TransportError(
                code: .invalidTarget,
                message: "verifying the server's certificate needs a server name, and none is known"
            )
        }
        return OpenSSLHandler(
            connection: connection,
            role: .client(pins: configuration.pinnedPublicKeys),
            handshakeTimeout: handshakeTimeout,
            handshakePromise: handshakePromise
        )
    }

    /// The name without IPv6 brackets or a trailing dot; `nil` when nothing is left.
    static func normalizedName(_ name: String?) -> String? {
        guard var name else { return nil }
        if name.hasPrefix("["), name.hasSuffix("]") {
            name = String(name.dropFirst().dropLast())
        }
        if name.hasSuffix(".") {
            name = String(name.dropLast())
        }
        return name.isEmpty ? nil : name
    }
}
