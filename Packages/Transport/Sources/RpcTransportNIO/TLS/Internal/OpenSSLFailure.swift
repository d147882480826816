import CRpcOpenSSL
import RpcTransport

/// What OpenSSL reported when a handshake, read or write failed, and its mapping onto
/// ``TransportError`` codes.
struct OpenSSLFailure: Error {
    /// The `SSL_get_error` value.
    var sslError: Int32
    /// The thread's error queue at the time of the failure.
    var entries: [OpenSSLErrorQueue.Entry]
    /// The `SSL_get_verify_result` value at the time of the failure.
    var verifyResult: Int

    /// Whether OpenSSL failed the handshake because the peer's certificate did not verify.
    private var isVerificationFailure: Bool {
        verifyResult != Int(X509_V_OK)
            && entries.contains { $0.library == ERR_LIB_SSL && $0.reason == SSL_R_CERTIFICATE_VERIFY_FAILED }
    }

    /// OpenSSL's reasons as one line.
    private var reason: String {
        let fallback =
            sslError == SSL_ERROR_SYSCALL ? "the connection ended unexpectedly" : "TLS error \(sslError)"
        return OpenSSLErrorQueue.describe(entries, fallback: fallback)
    }

    /// The error for a failed handshake.
    ///
    /// - Parameter peer: how messages name the peer, "server" or "client".
    func handshakeError(peer: String) -> TransportError {
        if isVerificationFailure {
            return Self.verificationError(verifyResult, peer: peer)
        }
        return TransportError(code: .tlsHandshakeFailed, message: "TLS handshake failed: \(reason)", cause: self)
    }

    /// The error for a failed read or write on an established connection.
    ///
    /// A fatal alert before any application data arrived is the peer rejecting the handshake:
    /// with TLS 1.3 a client finishes its side before the server has checked the client's
    /// certificate, so a server's refusal reaches the client only as its first read fails.
    func connectionError(beforeApplicationData: Bool) -> TransportError {
        if beforeApplicationData {
            return TransportError(
                code: .tlsHandshakeFailed,
                message: "the peer rejected the TLS handshake: \(reason)",
                cause: self
            )
        }
        return TransportError(code: .ioError, message: "TLS connection failed: \(reason)", cause: self)
    }

    /// The error for a certificate verification result other than `X509_V_OK`.
    static func verificationError(_ result: Int, peer: String) -> TransportError {
        let description: UnsafePointer<CChar>? = X509_verify_cert_error_string(result)
        let text = description.map { String(cString: $0) } ?? "unknown verification error"
        let detail = "\(text) (verify error \(result))"
        switch Int32(truncatingIfNeeded: result) {
        case X509_V_ERR_CERT_HAS_EXPIRED, X509_V_ERR_CERT_NOT_YET_VALID:
            return TransportError(
                code: .certificateExpired,
                message: "the \(peer)'s certificate is outside its validity period: \(detail)"
            )
        case X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH:
            return TransportError(
                code: .hostnameMismatch,
                message: "the \(peer)'s certificate does not name the host connected to: \(detail)"
            )
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT,
            X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY,
            X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE,
            X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT,
            X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN,
            X509_V_ERR_CERT_UNTRUSTED,
            X509_V_ERR_CERT_REJECTED,
            X509_V_ERR_INVALID_CA,
            X509_V_ERR_CERT_SIGNATURE_FAILURE:
            return TransportError(
                code: .certificateUntrusted,
                message: "the \(peer)'s certificate is not trusted: \(detail)"
            )
        default:
            return TransportError(
                code: .tlsHandshakeFailed,
                message: "the \(peer)'s certificate failed verification: \(detail)"
            )
        }
    }
}
