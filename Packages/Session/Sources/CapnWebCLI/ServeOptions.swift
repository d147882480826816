/// What `capnweb serve` was asked to do.
struct ServeOptions: Sendable {
    /// The address to listen on.
    var host = "127.0.0.1"
    /// The port to listen on; 0 picks a free one.
    var port = 8787
    /// A PEM certificate chain file, for TLS (`wss://`, `https://`).
    var tlsCertificate: String?
    /// The PEM private key file of ``tlsCertificate``.
    var tlsKey: String?
    /// Whether permessage-deflate is used with clients that offer it.
    var deflate = true

    /// Creates options.
    init(
        host: String = "127.0.0.1", port: Int = 8787, tlsCertificate: String? = nil, tlsKey: String? = nil,
        deflate: Bool = true
    ) {
        self.host = host
        self.port = port
        self.tlsCertificate = tlsCertificate
        self.tlsKey = tlsKey
        self.deflate = deflate
    }
}
