/// How a server secures the connections it accepts with TLS.
///
/// ```swift
/// let tls = TLSServerConfiguration(
///     certificateChain: [.file(path: "server-chain.pem")],
///     privateKey: .file(path: "server-key.pem")
/// )
/// ```
public struct TLSServerConfiguration: Sendable {
    /// The server's certificate followed by any intermediates. Must not be empty.
    public var certificateChain: [CertificateSource]
    /// The private key of the first certificate in ``certificateChain``.
    public var privateKey: PrivateKeySource
    /// Whether clients are asked for a certificate. Defaults to ``ClientCertificateVerification/none``.
    public var clientCertificateVerification: ClientCertificateVerification
    /// The roots client certificates must lead to. Defaults to ``TrustRoots/systemDefault``;
    /// only used when ``clientCertificateVerification`` asks for certificates.
    public var trustRoots: TrustRoots
    /// The oldest protocol version accepted. Defaults to ``TLSVersion/v1_2``.
    public var minimumVersion: TLSVersion
    /// The application protocols the server speaks, most preferred first; empty to ignore ALPN.
    ///
    /// The server picks the first of these that the client offers. When none matches, the
    /// handshake continues without an application protocol.
    public var applicationProtocols: [String]

    /// Creates a server configuration.
    public init(
        certificateChain: [CertificateSource],
        privateKey: PrivateKeySource,
        clientCertificateVerification: ClientCertificateVerification = .none,
        trustRoots: TrustRoots = .systemDefault,
        minimumVersion: TLSVersion = .v1_2,
        applicationProtocols: [String] = []
    ) {
        self.certificateChain = certificateChain
        self.privateKey = privateKey
        self.clientCertificateVerification = clientCertificateVerification
        self.trustRoots = trustRoots
        self.minimumVersion = minimumVersion
        self.applicationProtocols = applicationProtocols
    }
}
