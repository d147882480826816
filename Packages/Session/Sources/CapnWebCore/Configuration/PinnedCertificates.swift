public import RpcTransport

/// Inside ``TLS``: trusts exactly these certificates as roots (and not the system's), so the
/// server must present one of them or a certificate they issued.
///
/// ```swift
/// TLS { PinnedCertificates(bundle: .main, named: "api-cert") }   // `import CapnWeb`
/// TLS { PinnedCertificates(files: "api-cert.pem") }
/// ```
public struct PinnedCertificates: TLSComponent {
    /// The PEM sources.
    public var certificates: [CertificateSource]

    /// Pins the certificates of `certificates`.
    public init(_ certificates: [CertificateSource]) {
        self.certificates = certificates
    }

    /// Pins the certificates of `certificates`.
    public init(_ certificates: CertificateSource...) {
        self.certificates = certificates
    }

    /// Pins the certificates in the PEM files at `paths`.
    public init(files paths: String...) {
        self.certificates = paths.map { .file(path: $0) }
    }

    /// Pins the certificates in the PEM text `pem`.
    public init(pem: String) {
        self.certificates = [.pem(Array(pem.utf8))]
    }

    /// Makes the certificates the only trust roots.
    public func apply(to tls: inout TLSClientConfiguration) {
        tls.trustRoots = .certificates(certificates)
    }
}
