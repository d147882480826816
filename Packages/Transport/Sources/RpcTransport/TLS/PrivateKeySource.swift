/// Where to read a private key from.
///
/// The key is PEM encoded (PKCS #8, or the traditional RSA or EC forms) and must not be
/// encrypted: this package never prompts for a passphrase.
public enum PrivateKeySource: Sendable, Hashable {
    /// A PEM file on disk, read when the TLS configuration is put to use.
    case file(path: String)
    /// PEM text held in memory.
    case pem([UInt8])
}
