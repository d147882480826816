/// How a client secures its connection with TLS.
///
/// The defaults verify the server against the system trust store and the host being connected
/// to, require TLS 1.2 or later, and present no client certificate.
///
/// ```swift
/// var tls = TLSClientConfiguration.default
/// tls.trustRoots = .certificates([.file(path: "ca.pem")])
/// tls.applicationProtocols = ["http/1.1"]
/// ```
public struct TLSClientConfiguration: Sendable {
    /// The client's certificate followed by any intermediates, for mutual TLS; empty for none.
    public var certificateChain: [CertificateSource]
    /// The private key of the first certificate in ``certificateChain``.
    public var privateKey: PrivateKeySource?
    /// How the server's certificate is checked. Defaults to
    /// ``ServerCertificateVerification/fullVerification``.
    public var serverCertificateVerification: ServerCertificateVerification
    /// The roots the server's chain must lead to. Defaults to ``TrustRoots/systemDefault``.
    public var trustRoots: TrustRoots
    /// Public keys the server's leaf certificate must match (any one of them); empty for no pinning.
    public var pinnedPublicKeys: [PublicKeyPin]
    /// The name sent as server name indication and verified against the certificate.
    ///
    /// `nil` (the default) uses the host of the connection's target. An IP address is verified
    /// against the certificate's IP address entries and is never sent as server name indication.
    public var serverName: String?
    /// The oldest protocol version accepted. Defaults to ``TLSVersion/v1_2``.
    public var minimumVersion: TLSVersion
    /// The application protocols offered through ALPN, most preferred first; empty for none.
    public var applicationProtocols: [String]

    /// Creates a client configuration.
    public init(
        certificateChain: [CertificateSource] = [],
        privateKey: PrivateKeySource? = nil,
        serverCertificateVerification: ServerCertificateVerification = .fullVerification,
        trustRoots: TrustRoots = .systemDefault,
        pinnedPublicKeys: [PublicKeyPin] = [],
        serverName: String? = nil,
        minimumVersion: TLSVersion = .v1_2,
        applicationProtocols: [String] = []
    ) {
        self.certificateChain = certificateChain
        self.privateKey = privateKey
        self.serverCertificateVerification = serverCertificateVerification
        self.trustRoots = trustRoots
        self.pinnedPublicKeys = pinnedPublicKeys
        self.serverName = serverName
        self.minimumVersion = minimumVersion
        self.applicationProtocols = applicationProtocols
    }

    /// A configuration that trusts exactly `pinnedCertificates` (and not the system's roots):
    /// the server must present one of them, or a certificate one of them issued, with the
    /// usual chain, validity and hostname checks.
    ///
    /// ```swift
    /// config.tls = .init(minimumVersion: .TLSv12, pinnedCertificates: [.file(path: "api-cert.pem")])
    /// ```
    ///
    /// The certificates are read when the configuration is put to use (at connect); one that
    /// cannot be read fails the connection with ``TransportError/Code/tlsConfigurationInvalid``.
    public init(minimumVersion: TLSVersion = .v1_2, pinnedCertificates: [CertificateSource]) {
        self.init(trustRoots: .certificates(pinnedCertificates), minimumVersion: minimumVersion)
    }

    /// Full verification against the system trust store, TLS 1.2 or later, no client certificate.
    public static var `default`: TLSClientConfiguration {
        TLSClientConfiguration()
    }
}
