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

    /// Creates options.
    init(
        url: String,
        statements: [String],
        batch: Bool = false,
        trace: Bool = false,
        timeout: Duration = .seconds(30),
        caCertificates: [String] = [],
        headers: [String: String] = [:]
    ) {
        self.url = url
        self.statements = statements
        self.batch = batch
        self.trace = trace
        self.timeout = timeout
        self.caCertificates = caCertificates
        self.headers = headers
    }
}
