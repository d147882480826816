import CRpcOpenSSL

/// An X.509 certificate owned by Swift; the `X509` object is freed once, in `deinit`.
final class OpenSSLCertificate {
    /// The `X509` object. Valid for the lifetime of this instance; never free it.
    let pointer: OpaquePointer

    /// Takes ownership of one reference to `pointer`.
    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        X509_free(pointer)
    }

    /// The SHA-256 digest of the DER-encoded SubjectPublicKeyInfo, as public key pins use it;
    /// `nil` when the key cannot be encoded.
    func subjectPublicKeyInfoSHA256() -> [UInt8]? {
        OpenSSLErrorQueue.clear()
        defer { OpenSSLErrorQueue.clear() }
        // Borrowed from the certificate: not freed here.
        guard let publicKey = X509_get0_pubkey(pointer) else { return nil }
        let length = i2d_PUBKEY(publicKey, nil)
        guard length > 0 else { return nil }

        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return i2d_PUBKEY(publicKey, &cursor)
        }
        guard written == length else { return nil }

        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var digestLength: UInt32 = 0
        let status = der.withUnsafeBytes { input in
            digest.withUnsafeMutableBufferPointer { output in
                EVP_Digest(input.baseAddress, input.count, output.baseAddress, &digestLength, EVP_sha256(), nil)
            }
        }
        guard status == 1 else { return nil }
        return Array(digest.prefix(Int(digestLength)))
    }
}
