import ArgumentParser
internal import CapnWeb

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `capnweb serve --demo`: serves the conformance test API until interrupted.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the Cap'n Web conformance test API over WebSocket and HTTP batch.",
        discussion: """
            Prints 'READY <ws-url>' on standard output once listening, and runs until SIGINT or \
            SIGTERM, then shuts down gracefully. Every connection gets a fresh TestAPI.
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

    func validate() throws {
        guard demo else {
            throw ValidationError("only '--demo' is supported: 'capnweb serve --demo'")
        }
        guard (0...65535).contains(port) else {
            throw ValidationError("the port must be between 0 and 65535")
        }
        guard (tlsCertificate == nil) == (tlsKey == nil) else {
            throw ValidationError("'--tls-cert' and '--tls-key' go together")
        }
    }

    func run() async throws {
        let options = ServeOptions(
            host: host, port: port, tlsCertificate: tlsCertificate, tlsKey: tlsKey, deflate: !noDeflate)
        let status = await DemoServer.run(options, output: .process) {
            _ = await TerminationSignal.wait()
            Self.startShutdownWatchdog()
        }
        if status != 0 {
            throw ExitCode(status)
        }
    }

    /// The longest a graceful shutdown may take after the signal before the process exits
    /// anyway: the server's grace period (2 seconds) plus a margin.
    static let shutdownLimit: Duration = .seconds(5)

    /// Ends the process with status 1 when the graceful shutdown is still running after
    /// ``shutdownLimit``, or at once on a second `SIGINT` or `SIGTERM`; a handler that never
    /// returns (an HTTP batch waiting on `hang()`) must not keep the server alive.
    private static func startShutdownWatchdog() {
        // Unowned on purpose: the watchdog outlives the command's other work by design, and it
        // cannot outlive its owner, the process, which it ends (or which ends first).
        Task.detached {
            // Whichever comes first: a second signal, or the limit.
            _ = try? await Deadline.race(shutdownLimit) { _ = await TerminationSignal.wait() }
            CommandOutput.process.standardError("error: the graceful shutdown did not finish; exiting\n")
            endProcess(1)
        }
    }
}

/// Ends the process with `status` at once (outside ``ServeCommand``, whose `exit` is
/// ArgumentParser's).
private func endProcess(_ status: Int32) -> Never {
    exit(status)
}
