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

    /// Creates options.
    init(url: String, statements: [String], batch: Bool = false, trace: Bool = false, timeout: Duration = .seconds(30)) {
        self.url = url
        self.statements = statements
        self.batch = batch
        self.trace = trace
        self.timeout = timeout
    }
}
