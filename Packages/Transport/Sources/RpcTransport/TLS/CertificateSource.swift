/// Where to read one or more X.509 certificates from.
///
/// The certificates are PEM encoded. One source may hold several certificates, for example a leaf
/// followed by its intermediates; they are used in the order they appear.
///
/// ```swift
/// let chain = CertificateSource.file(path: "server-chain.pem")
/// let roots = CertificateSource.pem(Array(caPEMString.utf8))
/// ```
public enum CertificateSource: Sendable, Hashable {
    /// A PEM file on disk, read when the TLS configuration is put to use.
    case file(path: String)
    /// PEM text held in memory.
    case pem([UInt8])
}
