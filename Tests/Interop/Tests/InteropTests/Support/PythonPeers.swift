/// How to start the peer script in server mode.
struct PythonServerOptions: Sendable {
    /// Whether permessage-deflate is accepted.
    var deflate = true
    /// The subprotocols the server speaks, most preferred first; empty for none.
    var subprotocols: [String] = []
    /// The server's certificate and key files, for TLS.
    var certificate: (chain: String, key: String)?
    /// The CA that client certificates must chain to; asks clients for a certificate.
    var clientCA: String?
    /// Whether a client certificate is required (not just requested).
    var requireClientCertificate = false
    /// A text message that makes the server close with ``closeCode`` and ``closeReason``.
    var closeTrigger: String?
    /// The close code sent on ``closeTrigger``.
    var closeCode = 1000
    /// The close reason sent on ``closeTrigger``.
    var closeReason = ""
    /// A text message that makes the server answer with ``oversizeBytes`` of text.
    var oversizeTrigger: String?
    /// The size of the answer to ``oversizeTrigger``.
    var oversizeBytes = 0
    /// When set, echoes longer than this are sent as fragmented messages of pieces this long.
    var fragmentSize: Int?
    /// Whether every ping received is printed as a `ping` event (once its pong is written).
    var reportPings = false

    /// The command-line arguments.
    var arguments: [String] {
        var arguments = ["server"]
        if reportPings {
            arguments.append("--report-pings")
        }
        if !deflate {
            arguments.append("--no-deflate")
        }
        for subprotocol in subprotocols {
            arguments += ["--subprotocol", subprotocol]
        }
        if let certificate {
            arguments += ["--cert", certificate.chain, "--key", certificate.key]
        }
        if let clientCA {
            arguments += ["--client-ca", clientCA]
            if requireClientCertificate {
                arguments.append("--require-client-cert")
            }
        }
        if let closeTrigger {
            arguments += ["--close-trigger", closeTrigger, "--close-code", String(closeCode), "--close-reason", closeReason]
        }
        if let oversizeTrigger {
            arguments += ["--oversize-trigger", oversizeTrigger, "--oversize-bytes", String(oversizeBytes)]
        }
        if let fragmentSize {
            arguments += ["--fragment-size", String(fragmentSize)]
        }
        return arguments
    }
}

/// The peer script as a WebSocket echo server.
enum PythonServer {
    /// Starts the server, waits for its port, runs `body` and stops the server.
    static func run<Result>(
        _ options: PythonServerOptions = PythonServerOptions(),
        isolation: isolated (any Actor)? = #isolation,
        _ body: (_ server: PeerProcess, _ port: Int) async throws -> Result
    ) async throws -> Result {
        try await PeerProcess.withPeer(options.arguments, name: "python server") { server in
            let port = try await server.waitForReadyPort()
            return try await body(server, port)
        }
    }
}

/// How to start the peer script in client mode.
struct PythonClientOptions: Sendable {
    /// The URL to connect to.
    var url: String
    /// Whether permessage-deflate is offered.
    var deflate = true
    /// The subprotocols offered.
    var subprotocols: [String] = []
    /// The CA file the server's certificate must chain to, for `wss` URLs.
    var caFile: String?
    /// The client certificate and key files, for mutual TLS.
    var certificate: (chain: String, key: String)?
    /// The messages to send, one at a time, each waiting for its echo (peer script spelling).
    var messages: [String] = []
    /// Whether the server is expected to close after the messages.
    var expectClose = false
    /// The close code to close with after the messages, instead of 1000.
    var closeCode: Int?
    /// The close reason that goes with ``closeCode``.
    var closeReason = ""
    /// How long to stay connected after the messages, in seconds.
    var linger: Double = 0
    /// The interval between the client's keepalive pings, in seconds; `nil` for none.
    var pingInterval: Double?
    /// How long a pong may take before the client closes with 1011, in seconds.
    var pingTimeout: Double?
    /// When set, messages longer than this are sent as fragmented messages of pieces this long.
    var fragmentSize: Int?

    /// The command-line arguments.
    var arguments: [String] {
        var arguments = ["client", url]
        if !deflate {
            arguments.append("--no-deflate")
        }
        for subprotocol in subprotocols {
            arguments += ["--subprotocol", subprotocol]
        }
        if let caFile {
            arguments += ["--ca", caFile]
        }
        if let certificate {
            arguments += ["--cert", certificate.chain, "--key", certificate.key]
        }
        for message in messages {
            arguments += ["--send", message]
        }
        if expectClose {
            arguments.append("--expect-close")
        }
        if let closeCode {
            arguments += ["--close-code", String(closeCode), "--close-reason", closeReason]
        }
        if linger > 0 {
            arguments += ["--linger", String(linger)]
        }
        if let pingInterval {
            arguments += ["--ping-interval", String(pingInterval)]
        }
        if let pingTimeout {
            arguments += ["--ping-timeout", String(pingTimeout)]
        }
        if let fragmentSize {
            arguments += ["--fragment-size", String(fragmentSize)]
        }
        return arguments
    }
}

/// What a run of the client printed.
struct PythonClientRun: Sendable {
    /// Every event, in order.
    var events: [PeerEvent]
    /// The process's exit status.
    var exitStatus: Int32
    /// Everything it printed, for failure messages.
    var transcript: String

    /// The `open` event, if the connection opened.
    var open: PeerEvent? { events.first { $0.event == "open" } }
    /// The `message` events.
    var messages: [PeerEvent] { events.filter { $0.event == "message" } }
    /// The `closed` event, if the connection got that far.
    var closed: PeerEvent? { events.first { $0.event == "closed" } }
    /// The `error` events.
    var errors: [PeerEvent] { events.filter { $0.event == "error" } }
    /// The `pong` events: the answers to the client's keepalive pings.
    var pongs: [PeerEvent] { events.filter { $0.event == "pong" } }
}

/// The peer script as a WebSocket client.
enum PythonClient {
    /// Runs the client to its end (bounded by `limit`) and returns what it printed.
    static func run(_ options: PythonClientOptions, within limit: Duration = .seconds(40)) async throws -> PythonClientRun {
        try await PeerProcess.withPeer(options.arguments, name: "python client") { client in
            let events = try await client.waitForExit(within: limit)
            return PythonClientRun(events: events, exitStatus: client.exitStatus, transcript: client.transcript)
        }
    }
}
