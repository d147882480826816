/// The certificate authorities a peer's certificate chain must lead to.
public struct TrustRoots: Sendable, Hashable {
    /// The choice, for the TLS implementations.
    package enum Storage: Sendable, Hashable {
        case systemDefault
        case certificates([CertificateSource])
    }

    /// Which choice this is.
    package let storage: Storage

    private init(storage: Storage) {
        self.storage = storage
    }

    /// The operating system's trust store.
    public static let systemDefault = TrustRoots(storage: .systemDefault)

    /// Exactly the given root certificates, and not the system's.
    ///
    /// - Parameter certificates: PEM sources; each may hold several certificates.
    public static func certificates(_ certificates: [CertificateSource]) -> TrustRoots {
        TrustRoots(storage: .certificates(certificates))
    }
}
