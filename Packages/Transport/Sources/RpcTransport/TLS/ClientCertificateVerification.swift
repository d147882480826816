/// Whether a server asks clients for a certificate (mutual TLS), and how it treats the answer.
public struct ClientCertificateVerification: Sendable, Hashable {
    /// The choice, for the TLS implementations.
    package enum Mode: Sendable, Hashable {
        case none
        case optional
        case required
    }

    /// Which choice this is.
    package let mode: Mode

    private init(mode: Mode) {
        self.mode = mode
    }

    /// No certificate is requested. The default.
    public static let none = ClientCertificateVerification(mode: .none)

    /// A certificate is requested; a client may connect without one, but a certificate it does
    /// present must lead to the configured trust roots.
    public static let optional = ClientCertificateVerification(mode: .optional)

    /// A certificate is required and must lead to the configured trust roots; clients without one
    /// are rejected during the handshake.
    public static let required = ClientCertificateVerification(mode: .required)
}
