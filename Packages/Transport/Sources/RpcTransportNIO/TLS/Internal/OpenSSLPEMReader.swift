import CRpcOpenSSL
import RpcTransport

/// Reads certificates and private keys from PEM files or bytes.
///
/// Failures are ``TransportError/Code/tlsConfigurationInvalid`` errors naming the source and
/// carrying OpenSSL's reason.
enum OpenSSLPEMReader {
    /// Every certificate in `source`, in order; at least one.
    ///
    /// - Parameter purpose: what the certificates are for, used in error messages
    ///   (for example "certificate chain").
    static func certificates(
        from source: CertificateSource,
        purpose: String
    ) throws(TransportError) -> [OpenSSLCertificate] {
        let input: Input
        switch source {
        case .file(let path): input = .file(path)
        case .pem(let bytes): input = .bytes(bytes)
        }
        let origin = input.origin
        let bio = try makeBIO(input, purpose: purpose)
        defer { BIO_free(bio) }

        OpenSSLErrorQueue.clear()
        var certificates: [OpenSSLCertificate] = []
        // A passphrase callback that refuses: OpenSSL must never prompt on a terminal.
        while let certificate = PEM_read_bio_X509(bio, nil, { _, _, _, _ in 0 }, nil) {
            certificates.append(OpenSSLCertificate(taking: certificate))
        }
        // Reading stops with a "no start line" error at the end of the input; anything else
        // means a certificate was malformed.
        let problems = OpenSSLErrorQueue.drain().filter { entry in
            !(entry.library == ERR_LIB_PEM && entry.reason == PEM_R_NO_START_LINE)
        }
        guard problems.isEmpty else {
            throw invalid(
                "cannot read the \(purpose) from \(origin)",
                reason: OpenSSLErrorQueue.describe(problems, fallback: "malformed PEM")
            )
        }
        guard !certificates.isEmpty else {
            throw invalid("cannot read the \(purpose) from \(origin)", reason: "it holds no PEM certificate")
        }
        return certificates
    }

    /// The private key in `source`.
    static func privateKey(from source: PrivateKeySource) throws(TransportError) -> OpenSSLPrivateKey {
        let input: Input
        switch source {
        case .file(let path): input = .file(path)
        case .pem(let bytes): input = .bytes(bytes)
        }
        let origin = input.origin
        let bio = try makeBIO(input, purpose: "private key")
        defer { BIO_free(bio) }

        OpenSSLErrorQueue.clear()
        guard let key = PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in 0 }, nil) else {
            throw invalid(
                "cannot read the private key from \(origin)",
                reason: OpenSSLErrorQueue.drainedDescription(fallback: "it holds no PEM private key")
            )
        }
        OpenSSLErrorQueue.clear()
        return OpenSSLPrivateKey(taking: key)
    }

    /// How error messages name a key source.
    static func describe(_ source: PrivateKeySource) -> String {
        switch source {
        case .file(let path): Input.file(path).origin
        case .pem(let bytes): Input.bytes(bytes).origin
        }
    }

    /// A configuration error with OpenSSL's reason appended.
    static func invalid(_ message: String, reason: String) -> TransportError {
        TransportError(code: .tlsConfigurationInvalid, message: "\(message): \(reason)")
    }

    /// PEM text to read: a file or bytes.
    private enum Input {
        case file(String)
        case bytes([UInt8])

        /// How error messages name the input.
        var origin: String {
            switch self {
            case .file(let path): "file '\(path)'"
            case .bytes: "PEM data"
            }
        }
    }

    /// A readable BIO over the input; the caller frees it.
    private static func makeBIO(_ input: Input, purpose: String) throws(TransportError) -> OpaquePointer {
        let origin = input.origin
        OpenSSLErrorQueue.clear()
        switch input {
        case .file(let path):
            guard let bio = BIO_new_file(path, "r") else {
                throw invalid(
                    "cannot open the \(purpose) \(origin)",
                    reason: OpenSSLErrorQueue.drainedDescription(fallback: "the file cannot be read")
                )
            }
            return bio
        case .bytes(let bytes):
            guard let bio = BIO_new(BIO_s_mem()) else {
                throw invalid(
                    "cannot read the \(purpose) from \(origin)",
                    reason: OpenSSLErrorQueue.drainedDescription(fallback: "out of memory")
                )
            }
            // The memory BIO keeps its own copy, so `bytes` need not outlive it.
            let written = bytes.withUnsafeBytes { raw -> Int32 in
                guard let base = raw.baseAddress, let count = Int32(exactly: raw.count) else { return -1 }
                return BIO_write(bio, base, count)
            }
            guard written == bytes.count else {
                BIO_free(bio)
                throw invalid(
                    "cannot read the \(purpose) from \(origin)",
                    reason: bytes.isEmpty ? "it is empty" : "it cannot be buffered"
                )
            }
            return bio
        }
    }
}
