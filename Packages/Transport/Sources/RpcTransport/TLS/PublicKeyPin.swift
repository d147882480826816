import RpcWire

/// The SHA-256 digest of a certificate's DER-encoded SubjectPublicKeyInfo: a pinned public key.
///
/// When a client configuration lists pins, the server's leaf certificate (the first certificate
/// it presents) must carry a public key matching one of them; intermediates and roots are not
/// considered. Pins are checked after the handshake, in addition to (not instead of) the chain
/// and hostname verification.
///
/// The textual form is the one used by HTTP public key pinning: the base64 digest, optionally
/// prefixed with `sha256/`. It can be computed with the `openssl` command line:
/// `openssl x509 -pubkey -noout -in cert.pem | openssl pkey -pubin -outform der |
/// openssl dgst -sha256 -binary | base64`.
public struct PublicKeyPin: Sendable, Hashable, CustomStringConvertible {
    /// The 32-byte SHA-256 digest of the SubjectPublicKeyInfo.
    public let sha256: [UInt8]

    /// Creates a pin from a raw SHA-256 digest.
    ///
    /// - Throws: ``TransportError`` with code ``TransportError/Code/tlsConfigurationInvalid``
    ///   when `digest` is not 32 bytes long.
    public init(sha256 digest: [UInt8]) throws(TransportError) {
        guard digest.count == 32 else {
            throw TransportError(
                code: .tlsConfigurationInvalid,
                message: "a SHA-256 public key pin must be 32 bytes, not \(digest.count)"
            )
        }
        self.sha256 = digest
    }

    /// Creates a pin from its base64 form, with or without the `sha256/` prefix.
    ///
    /// - Throws: ``TransportError`` with code ``TransportError/Code/tlsConfigurationInvalid``
    ///   when the text is not base64 or does not decode to 32 bytes.
    public init(base64: String) throws(TransportError) {
        var text = Substring(base64)
        if text.hasPrefix("sha256/") {
            text = text.dropFirst("sha256/".count)
        }
        guard let digest = Base64.decode(text) else {
            throw TransportError(
                code: .tlsConfigurationInvalid,
                message: "the public key pin '\(base64)' is not valid base64"
            )
        }
        try self.init(sha256: digest)
    }

    /// The pin as `sha256/` followed by the base64 digest.
    public var description: String {
        "sha256/" + Base64.encode(sha256, padded: true)
    }
}
