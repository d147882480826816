/// How a client checks the certificate a server presents.
public struct ServerCertificateVerification: Sendable, Hashable {
    /// The choice, for the TLS implementations.
    package enum Mode: Sendable, Hashable {
        case fullVerification
        case noHostnameVerification
        case noVerification
    }

    /// Which choice this is.
    package let mode: Mode

    private init(mode: Mode) {
        self.mode = mode
    }

    /// The chain must lead to a trusted root, be within its validity period, and name the server
    /// (a DNS name or IP address in the subject alternative names). The default.
    public static let fullVerification = ServerCertificateVerification(mode: .fullVerification)

    /// The chain must lead to a trusted root and be valid, but may name any host.
    public static let noHostnameVerification = ServerCertificateVerification(mode: .noHostnameVerification)

    /// Any certificate is accepted. Only for tests and tools; public-key pins are still checked.
    public static let noVerification = ServerCertificateVerification(mode: .noVerification)
}
