/// What `capnweb call` was asked to do.
struct CallOptions: Sendable {
    /// The server: `ws://` or `wss://` for a WebSocket session, `http://` or `https://` with
    /// ``batch``.
    var url: String
    /// The statements, in order; the last one's value is printed.
    var statements: [String]
    /// Whether to send everything as one HTTP batch instead of over a WebSocket.
    var batch = false
    /// Whether to write every frame to standard error (`-> ` sent, `<- ` received).
    var trace = false
    /// How long the whole call may take, connecting included.
    var timeout: Duration = .seconds(30)
    /// PEM files whose certificates are the only trusted roots for `wss://` and `https://`;
    /// empty for the system's roots.
    var caCertificates: [String] = []
    /// Headers sent with the WebSocket upgrade or the batch request.
    var headers: [String: String] = [:]
    /// How long the close handshake after the outcome may take before the connection is cut
    /// (never past ``timeout``): the one bound on waiting for a server that does not answer
    /// the close, whatever the transport's own close timeout.
    var closeWait: Duration = CallOptions.defaultCloseWait

    /// The default of ``closeWait``: 1 second.
    static let defaultCloseWait = Duration.seconds(1)

    /// Creates options.
    init(
        url: String,
        statements: [String],
        batch: Bool = false,
        trace: Bool = false,
        timeout: Duration = .seconds(30),
        caCertificates: [String] = [],
        headers: [String: String] = [:],
        closeWait: Duration = CallOptions.defaultCloseWait
    ) {
        self.url = url
        self.statements = statements
        self.batch = batch
        self.trace = trace
        self.timeout = timeout
        self.caCertificates = caCertificates
        self.headers = headers
        self.closeWait = closeWait
    }
}
