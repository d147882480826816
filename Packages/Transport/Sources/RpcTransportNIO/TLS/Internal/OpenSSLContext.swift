import CRpcOpenSSL
import RpcTransport

/// An `SSL_CTX` built from a client or server configuration; freed once, in `deinit`.
///
/// Everything that can fail because of the configuration (reading certificates, keys and
/// roots, checking that the key matches the certificate, validating ALPN names) happens here,
/// once, so that making a connection later only allocates.
///
/// Safe to share between threads: the context is never modified after initialization, and
/// OpenSSL allows creating connections from one context concurrently.
final class OpenSSLContext: @unchecked Sendable {
    /// The `SSL_CTX`. Valid for the lifetime of this instance; never free it.
    let pointer: OpaquePointer

    /// The server's ALPN preferences, read by the selection callback through an unretained
    /// pointer; kept alive here for as long as the context.
    private let serverApplicationProtocols: ApplicationProtocolList?

    /// Builds a client context.
    ///
    /// Every `throw` after `pointer` is stored happens on a fully initialized instance, so
    /// `deinit` frees the context.
    init(client configuration: TLSClientConfiguration) throws(TransportError) {
        let pointer = try Self.makeContext(method: TLS_client_method())
        self.pointer = pointer
        self.serverApplicationProtocols = nil
        try Self.applyCommonSettings(pointer, minimumVersion: configuration.minimumVersion)

        switch configuration.serverCertificateVerification.mode {
        case .fullVerification, .noHostnameVerification:
            SSL_CTX_set_verify(pointer, SSL_VERIFY_PEER, nil)
            try Self.loadTrustRoots(configuration.trustRoots, into: pointer, advertise: false)
        case .noVerification:
            SSL_CTX_set_verify(pointer, SSL_VERIFY_NONE, nil)
        }

        switch (configuration.certificateChain.isEmpty, configuration.privateKey) {
        case (true, nil):
            break
        case (false, let key?):
            try Self.loadIdentity(chain: configuration.certificateChain, key: key, into: pointer)
        case (true, _?):
            throw TransportError(
                code: .tlsConfigurationInvalid,
                message: "a client private key is configured without a certificate chain"
            )
        case (false, nil):
            throw TransportError(
                code: .tlsConfigurationInvalid,
                message: "a client certificate chain is configured without a private key"
            )
        }

        if !configuration.applicationProtocols.isEmpty {
            let list = try ApplicationProtocolList(configuration.applicationProtocols)
            OpenSSLErrorQueue.clear()
            let status = list.wireFormat.withUnsafeBufferPointer { buffer in
                // Unusually, 0 means success here.
                SSL_CTX_set_alpn_protos(pointer, buffer.baseAddress, UInt32(buffer.count))
            }
            guard status == 0 else {
                throw Self.failure("cannot configure the application protocols")
            }
        }
    }

    /// Builds a server context.
    init(server configuration: TLSServerConfiguration) throws(TransportError) {
        // Validated before the context exists: a throw between allocating the context and
        // initializing every stored property would skip `deinit` and leak it.
        let protocols: ApplicationProtocolList? =
            configuration.applicationProtocols.isEmpty
            ? nil : try ApplicationProtocolList(configuration.applicationProtocols)
        let pointer = try Self.makeContext(method: TLS_server_method())
        self.pointer = pointer
        self.serverApplicationProtocols = protocols
        try Self.applyCommonSettings(pointer, minimumVersion: configuration.minimumVersion)

        guard !configuration.certificateChain.isEmpty else {
            throw TransportError(
                code: .tlsConfigurationInvalid,
                message: "a TLS server needs a certificate chain"
            )
        }
        try Self.loadIdentity(chain: configuration.certificateChain, key: configuration.privateKey, into: pointer)

        // Sessions are only resumed by the server that issued them.
        let sessionContext: [UInt8] = Array("RpcTransport".utf8)
        OpenSSLErrorQueue.clear()
        guard SSL_CTX_set_session_id_context(pointer, sessionContext, UInt32(sessionContext.count)) == 1 else {
            throw Self.failure("cannot set the session id context")
        }

        switch configuration.clientCertificateVerification.mode {
        case .none:
            SSL_CTX_set_verify(pointer, SSL_VERIFY_NONE, nil)
        case .optional:
            SSL_CTX_set_verify(pointer, SSL_VERIFY_PEER, nil)
            try Self.loadTrustRoots(configuration.trustRoots, into: pointer, advertise: true)
        case .required:
            SSL_CTX_set_verify(pointer, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nil)
            try Self.loadTrustRoots(configuration.trustRoots, into: pointer, advertise: true)
        }

        if let protocols {
            SSL_CTX_set_alpn_select_cb(
                pointer,
                { _, selected, selectedLength, offer, offerLength, argument in
                    guard let selected, let selectedLength, let offer, let argument else {
                        return SSL_TLSEXT_ERR_NOACK
                    }
                    let list = Unmanaged<ApplicationProtocolList>.fromOpaque(argument).takeUnretainedValue()
                    let offers = UnsafeBufferPointer(start: offer, count: Int(offerLength))
                    switch list.select(from: offers) {
                    case .selected(let offset, let length):
                        // Points into the client's offer, which outlives the callback's use of it.
                        selected.pointee = offer + offset
                        selectedLength.pointee = length
                        return SSL_TLSEXT_ERR_OK
                    case .noOverlap:
                        // Carry on without an application protocol; the layer above decides.
                        return SSL_TLSEXT_ERR_NOACK
                    case .malformed:
                        return SSL_TLSEXT_ERR_ALERT_FATAL
                    }
                },
                Unmanaged.passUnretained(protocols).toOpaque()
            )
        }
    }

    deinit {
        SSL_CTX_free(pointer)
    }

    // MARK: - Building blocks

    private static func makeContext(method: OpaquePointer?) throws(TransportError) -> OpaquePointer {
        OpenSSLErrorQueue.clear()
        guard let method, let context = SSL_CTX_new(method) else {
            throw failure("cannot create a TLS context")
        }
        return context
    }

    /// Settings every context gets. Called once the instance owns the context, so a failure
    /// leaves freeing it to `deinit`.
    private static func applyCommonSettings(
        _ context: OpaquePointer,
        minimumVersion: TLSVersion
    ) throws(TransportError) {
        CRpcSSL_CTX_apply_default_options(context)
        CRpcSSL_CTX_apply_default_modes(context)
        OpenSSLErrorQueue.clear()
        guard CRpcSSL_CTX_set_min_proto_version(context, minimumVersion.wireValue) == 1 else {
            throw failure("cannot require \(minimumVersion) or later")
        }
    }

    /// Installs a certificate chain (leaf first) and its private key, and checks they match.
    private static func loadIdentity(
        chain: [CertificateSource],
        key: PrivateKeySource,
        into context: OpaquePointer
    ) throws(TransportError) {
        var certificates: [OpenSSLCertificate] = []
        for source in chain {
            certificates += try OpenSSLPEMReader.certificates(from: source, purpose: "certificate chain")
        }
        guard let leaf = certificates.first else {
            throw TransportError(code: .tlsConfigurationInvalid, message: "the certificate chain is empty")
        }
        OpenSSLErrorQueue.clear()
        guard SSL_CTX_use_certificate(context, leaf.pointer) == 1 else {
            throw failure("cannot use the leaf certificate of the chain")
        }
        for intermediate in certificates.dropFirst() {
            OpenSSLErrorQueue.clear()
            guard CRpcSSL_CTX_add1_chain_cert(context, intermediate.pointer) == 1 else {
                throw failure("cannot add an intermediate certificate to the chain")
            }
        }

        let privateKey = try OpenSSLPEMReader.privateKey(from: key)
        let keyOrigin = OpenSSLPEMReader.describe(key)
        OpenSSLErrorQueue.clear()
        guard X509_check_private_key(leaf.pointer, privateKey.pointer) == 1 else {
            throw failure("the private key in \(keyOrigin) does not match the leaf certificate")
        }
        OpenSSLErrorQueue.clear()
        guard SSL_CTX_use_PrivateKey(context, privateKey.pointer) == 1 else {
            throw failure("cannot use the private key in \(keyOrigin)")
        }
        OpenSSLErrorQueue.clear()
        guard SSL_CTX_check_private_key(context) == 1 else {
            throw failure("the private key in \(keyOrigin) does not match the certificate")
        }
    }

    /// Installs the roots a peer's chain must lead to. With `advertise`, a server also names
    /// explicit roots in its certificate request, so clients can pick a matching certificate.
    private static func loadTrustRoots(
        _ roots: TrustRoots,
        into context: OpaquePointer,
        advertise: Bool
    ) throws(TransportError) {
        switch roots.storage {
        case .systemDefault:
            OpenSSLErrorQueue.clear()
            guard SSL_CTX_set_default_verify_paths(context) == 1 else {
                throw failure("cannot load the system trust store")
            }
        case .certificates(let sources):
            guard !sources.isEmpty else {
                throw TransportError(
                    code: .tlsConfigurationInvalid,
                    message: "the trust roots are an empty list of certificates"
                )
            }
            guard let store = SSL_CTX_get_cert_store(context) else {
                throw failure("the TLS context has no certificate store")
            }
            for source in sources {
                for root in try OpenSSLPEMReader.certificates(from: source, purpose: "trust roots") {
                    OpenSSLErrorQueue.clear()
                    guard X509_STORE_add_cert(store, root.pointer) == 1 else {
                        throw failure("cannot add a trust root")
                    }
                    if advertise {
                        OpenSSLErrorQueue.clear()
                        guard SSL_CTX_add_client_CA(context, root.pointer) == 1 else {
                            throw failure("cannot name a trust root in certificate requests")
                        }
                    }
                }
            }
        }
    }

    /// A configuration error carrying whatever OpenSSL queued.
    private static func failure(_ message: String) -> TransportError {
        OpenSSLPEMReader.invalid(message, reason: OpenSSLErrorQueue.drainedDescription(fallback: "unknown error"))
    }
}
