import CRpcOpenSSL
import NIOCore
import RpcTransport

/// One TLS session (`SSL`) driven through two memory BIOs; freed once, in `deinit`.
///
/// The network side never touches a socket: ciphertext from the peer is fed into the input BIO,
/// and ciphertext for the peer is drained from the output BIO. Every call clears the thread's
/// error queue first, so a failure is judged only by what this call queued.
///
/// Not thread-safe: used only on its channel's event loop.
final class OpenSSLConnection {
    /// The outcome of one OpenSSL operation.
    enum Outcome {
        /// It succeeded, with a positive byte count for reads and writes.
        case success(Int32)
        /// It needs more ciphertext from the peer.
        case wantRead
        /// It needs the output BIO drained.
        case wantWrite
        /// The peer sent close_notify.
        case closedByPeer
        /// It failed.
        case failed(OpenSSLFailure)
    }

    /// Which side of the handshake this connection plays.
    enum Role {
        case client
        case server
    }

    /// Keeps the `SSL_CTX`, and the callback state it points to, alive for as long as the session.
    private let context: OpenSSLContext
    private let ssl: OpaquePointer
    /// Ciphertext from the peer. Owned by `ssl`.
    private let networkInput: OpaquePointer
    /// Ciphertext for the peer. Owned by `ssl`.
    private let networkOutput: OpaquePointer

    /// Creates a session from a context.
    init(context: OpenSSLContext, role: Role) throws(TransportError) {
        OpenSSLErrorQueue.clear()
        guard let ssl = SSL_new(context.pointer) else {
            throw Self.setupFailure("cannot create a TLS session")
        }
        guard let input = BIO_new(BIO_s_mem()) else {
            SSL_free(ssl)
            throw Self.setupFailure("cannot create a TLS session buffer")
        }
        guard let output = BIO_new(BIO_s_mem()) else {
            BIO_free(input)
            SSL_free(ssl)
            throw Self.setupFailure("cannot create a TLS session buffer")
        }
        // An empty input BIO asks to be retried instead of reporting end of file.
        CRpcBIO_set_mem_eof_return(input, -1)
        CRpcBIO_set_mem_eof_return(output, -1)
        // From here on the session owns both BIOs and frees them with itself.
        SSL_set_bio(ssl, input, output)
        switch role {
        case .client: SSL_set_connect_state(ssl)
        case .server: SSL_set_accept_state(ssl)
        }
        self.context = context
        self.ssl = ssl
        self.networkInput = input
        self.networkOutput = output
    }

    deinit {
        SSL_free(ssl)
    }

    // MARK: - Client identity

    /// Sets the name a client sends as server name indication and, with `verify`, checks the
    /// server's certificate against.
    ///
    /// An IP address literal is never sent as server name indication and is verified against
    /// the certificate's IP address entries.
    func setServerName(_ name: String, verify: Bool) throws(TransportError) {
        let isAddress = Self.isIPAddress(name)
        if !isAddress {
            OpenSSLErrorQueue.clear()
            guard CRpcSSL_set_tlsext_host_name(ssl, name) == 1 else {
                throw Self.setupFailure("cannot send '\(name)' as the server name", code: .invalidTarget)
            }
        }
        guard verify else { return }
        OpenSSLErrorQueue.clear()
        guard let parameters = SSL_get0_param(ssl) else {
            throw Self.setupFailure("cannot configure hostname verification")
        }
        if isAddress {
            guard X509_VERIFY_PARAM_set1_ip_asc(parameters, name) == 1 else {
                throw Self.setupFailure("cannot verify the IP address '\(name)'", code: .invalidTarget)
            }
        } else {
            X509_VERIFY_PARAM_set_hostflags(parameters, UInt32(X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS))
            guard X509_VERIFY_PARAM_set1_host(parameters, name, 0) == 1 else {
                throw Self.setupFailure("cannot verify the host name '\(name)'", code: .invalidTarget)
            }
        }
    }

    /// Whether OpenSSL reads `name` as an IPv4 or IPv6 address literal.
    static func isIPAddress(_ name: String) -> Bool {
        OpenSSLErrorQueue.clear()
        defer { OpenSSLErrorQueue.clear() }
        guard let parsed = a2i_IPADDRESS(name) else { return false }
        ASN1_OCTET_STRING_free(parsed)
        return true
    }

    // MARK: - Driving the session

    /// Advances the handshake as far as the ciphertext fed so far allows.
    func handshake() -> Outcome {
        perform { SSL_do_handshake($0) }
    }

    /// Decrypts at most one record's worth of plaintext, appended to `buffer`.
    func read(into buffer: inout ByteBuffer, maximumBytes: Int) -> Outcome {
        var outcome = Outcome.wantRead
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: maximumBytes) { space in
            let capacity = Int32(clamping: min(space.count, maximumBytes))
            outcome = perform { SSL_read($0, space.baseAddress, capacity) }
            if case .success(let count) = outcome {
                return Int(count)
            }
            return 0
        }
        return outcome
    }

    /// Encrypts plaintext from `buffer`, consuming what was accepted.
    func write(from buffer: inout ByteBuffer) -> Outcome {
        let outcome = buffer.withUnsafeReadableBytes { plaintext in
            let count = Int32(clamping: plaintext.count)
            return perform { SSL_write($0, plaintext.baseAddress, count) }
        }
        if case .success(let count) = outcome {
            buffer.moveReaderIndex(forwardBy: Int(count))
        }
        return outcome
    }

    /// Queues close_notify in the output BIO. Best effort: the result is not awaited.
    func shutdown() {
        OpenSSLErrorQueue.clear()
        _ = SSL_shutdown(ssl)
        OpenSSLErrorQueue.clear()
    }

    // MARK: - The network side

    /// Feeds ciphertext from the peer; `false` if the input BIO cannot take it.
    func feed(_ ciphertext: ByteBuffer) -> Bool {
        var remaining = ciphertext
        while remaining.readableBytes > 0 {
            let written = remaining.withUnsafeReadableBytes { bytes in
                BIO_write(networkInput, bytes.baseAddress, Int32(clamping: bytes.count))
            }
            guard written > 0 else { return false }
            remaining.moveReaderIndex(forwardBy: Int(written))
        }
        return true
    }

    /// Everything waiting in the output BIO, or `nil` when it is empty.
    func drainOutput(allocator: ByteBufferAllocator) -> ByteBuffer? {
        var pending = Int(BIO_ctrl_pending(networkOutput))
        guard pending > 0 else { return nil }
        var buffer = allocator.buffer(capacity: pending)
        while pending > 0 {
            let read = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: pending) { space in
                let count = BIO_read(networkOutput, space.baseAddress, Int32(clamping: min(space.count, pending)))
                return Int(max(count, 0))
            }
            guard read > 0 else { break }
            pending = Int(BIO_ctrl_pending(networkOutput))
        }
        return buffer
    }

    // MARK: - What was negotiated

    /// The protocol agreed through ALPN.
    var negotiatedApplicationProtocol: String? {
        var name: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &name, &length)
        guard let name, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: name, count: Int(length)), as: UTF8.self)
    }

    /// The negotiated protocol version.
    var negotiatedVersion: TLSVersion? {
        TLSVersion(negotiatedWireValue: SSL_version(ssl))
    }

    /// The first certificate the peer presented, if any.
    func peerLeafCertificate() -> OpenSSLCertificate? {
        SSL_get1_peer_certificate(ssl).map(OpenSSLCertificate.init(taking:))
    }

    // MARK: - Helpers

    private func perform(_ operation: (OpaquePointer) -> Int32) -> Outcome {
        OpenSSLErrorQueue.clear()
        let result = operation(ssl)
        if result > 0 {
            return .success(result)
        }
        let error = SSL_get_error(ssl, result)
        switch error {
        case SSL_ERROR_WANT_READ:
            return .wantRead
        case SSL_ERROR_WANT_WRITE:
            return .wantWrite
        case SSL_ERROR_ZERO_RETURN:
            return .closedByPeer
        default:
            return .failed(
                OpenSSLFailure(
                    sslError: error,
                    entries: OpenSSLErrorQueue.drain(),
                    verifyResult: Int(SSL_get_verify_result(ssl))
                )
            )
        }
    }

    private static func setupFailure(
        _ message: String,
        code: TransportError.Code = .tlsHandshakeFailed
    ) -> TransportError {
        let reason = OpenSSLErrorQueue.drainedDescription(fallback: "unknown error")
        return TransportError(code: code, message: "\(message): \(reason)")
    }
}
