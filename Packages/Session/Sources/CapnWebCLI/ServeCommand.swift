import ArgumentParser
internal import CapnWeb
internal import RpcTransportPrometheus

/// `capnweb serve --demo`: serves the conformance test API until interrupted.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the Cap'n Web conformance test API over WebSocket and HTTP batch.",
        discussion: """
            Prints 'READY <ws-url>' on standard output once listening, and runs until SIGINT or \
            SIGTERM, then shuts down gracefully: it stops accepting, lets the calls in flight \
            finish (10 seconds at most), closes the remaining sessions with 1001 and exits 0. \
            Every connection gets a fresh TestAPI.
            """
    )

    @Flag(help: "Serve the conformance test API (TEST-API.md); required.")
    var demo = false

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on; 0 picks a free port.")
    var port = 8787

    @Option(name: .customLong("tls-cert"), help: "A PEM certificate chain file, to serve wss:// and https://.")
    var tlsCertificate: String?

    @Option(name: .customLong("tls-key"), help: "The PEM private key file of --tls-cert.")
    var tlsKey: String?

    @Flag(name: .customLong("no-deflate"), help: "Refuse permessage-deflate (by default it is used with clients that offer it).")
    var noDeflate = false

    @Option(name: .customLong("metrics-port"), help: "Serve Prometheus metrics at GET /metrics on this port of --host (0 picks a free one); prints 'METRICS <url>' once listening.")
    var metricsPort: Int?

    func validate() throws {
        guard demo else {
            throw ValidationError("only '--demo' is supported: 'capnweb serve --demo'")
        }
        guard (0...65535).contains(port) else {
            throw ValidationError("the port must be between 0 and 65535")
        }
        if let metricsPort, !(0...65535).contains(metricsPort) {
            throw ValidationError("the metrics port must be between 0 and 65535")
        }
        guard (tlsCertificate == nil) == (tlsKey == nil) else {
            throw ValidationError("'--tls-cert' and '--tls-key' go together")
        }
    }

    func run() async throws {
        let options = ServeOptions(
            host: host, port: port, tlsCertificate: tlsCertificate, tlsKey: tlsKey, deflate: !noDeflate)
        let output = CommandOutput.process
        let host = self.host
        do {
            try await CommandServiceGroup.run(
                DemoServer.service(options, output: output), metricsPort: metricsPort, metricsHost: host
            ) { port in
                output.standardOutput("METRICS http://\(Self.urlHost(host)):\(port)/metrics\n")
            }
        } catch {
            output.standardError("error: cannot serve on \(host):\(port): \(error)\n")
            throw ExitCode(1)
        }
    }

    /// `host` as it appears in a URL: an IPv6 address in brackets.
    private static func urlHost(_ host: String) -> String {
        host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
    }
}
