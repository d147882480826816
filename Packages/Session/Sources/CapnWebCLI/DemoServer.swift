#if canImport(FoundationEssentials)
internal import FoundationEssentials
#else
internal import Foundation
#endif
internal import CapnWeb
internal import CapnWebDemo
internal import RpcTransportNIO

/// Runs `capnweb serve --demo`: the conformance ``TestAPI`` (a fresh one per connection and per
/// batch) over WebSocket and HTTP batch, on one port.
enum DemoServer {
    /// Listens, writes `READY <ws-url>` on standard output once listening, and serves until
    /// `until` returns; then shuts down gracefully. Returns the exit status: 0, or 1 when the
    /// server cannot start (the reason goes to standard error).
    ///
    /// - Parameters:
    ///   - options: Where to listen, and the TLS files.
    ///   - output: Where `READY` and errors go.
    ///   - onReady: Called with the WebSocket and HTTP batch URLs once listening (after `READY`
    ///     is written).
    ///   - until: Returns when the server should stop (a signal, or a test's end).
    static func run(
        _ options: ServeOptions,
        output: CommandOutput,
        onReady: @Sendable (_ webSocketURL: String, _ batchURL: String) -> Void = { _, _ in },
        until: @Sendable () async -> Void
    ) async -> Int32 {
        let tls = tls(options)
        do {
            try await withRpcServer(
                host: options.host, port: options.port, tls: tls, deflate: options.deflate ? .default : nil,
                main: { TestAPI() }) { server in
                let url = server.webSocketURL.absoluteString
                output.standardOutput("READY \(url)\n")
                onReady(url, server.batchURL.absoluteString)
                await until()
            }
            return 0
        } catch {
            output.standardError("error: cannot serve on \(options.host):\(options.port): \(error)\n")
            return 1
        }
    }

    /// The demo server as a service of the command's `ServiceGroup`: it writes `READY <ws-url>`
    /// once listening and, when the group shuts down gracefully, lets the calls in flight finish
    /// (``RpcServer/defaultDrainTimeout``) before it closes the sessions with 1001.
    static func service(_ options: ServeOptions, output: CommandOutput) -> RpcServerService {
        RpcServerService(
            host: options.host, port: options.port, tls: tls(options), deflate: options.deflate ? .default : nil,
            main: { _ in TestAPI() }
        ) { server in
            output.standardOutput("READY \(server.webSocketURL.absoluteString)\n")
        }
    }

    /// The TLS settings of the certificate and key files, when both are given.
    private static func tls(_ options: ServeOptions) -> TLSServerConfiguration? {
        options.tlsCertificate.flatMap { certificate in
            options.tlsKey.map { key in
                TLSServerConfiguration(certificateChain: [.file(path: certificate)], privateKey: .file(path: key))
            }
        }
    }
}
