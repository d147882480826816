import LoopbackSupport
import RpcTransport
import RpcTransportNIO

/// The server side of the benchmark: `TransportBenchmarks --serve <kind>` runs one echo server on
/// a free loopback port, prints `PORT <n>` and serves until its standard input closes (so it
/// never outlives the driver).
enum EchoServers {
    /// The permessage-deflate settings of the deflate variant: defaults, but every message is
    /// compressed (the default threshold of 256 bytes would leave 128-byte messages alone).
    static let compressEverything = PerMessageDeflateConfiguration(minimumSizeToCompress: 0)

    /// Runs the server of `kind` until standard input closes.
    static func serve(_ kind: ServerKind, options: TransportBenchmarkOptions) async throws {
        switch kind {
        case .ours, .oursDeflate, .oursTLS:
            try await serveOurs(kind, options: options)
        case .bare:
            try await LoopbackServer.serveBareEcho(tls: nil)
        case .bareTLS:
            try await LoopbackServer.serveBareEcho(tls: tlsConfiguration(options))
        }
    }

    private static func serveOurs(_ kind: ServerKind, options: TransportBenchmarkOptions) async throws {
        var configuration = TransportServerConfiguration(address: .host("127.0.0.1", port: 0))
        configuration.shutdownGracePeriod = .seconds(1)
        if kind == .oursDeflate {
            configuration.deflate = compressEverything
        }
        if kind == .oursTLS {
            configuration.tls = try tlsConfiguration(options)
        }
        try await withTransportServer(
            configuration: configuration,
            onConnection: { transport, _ in
                transport.start { event in
                    if case .message(let message) = event {
                        try? transport.enqueue(message)
                    }
                }
                _ = await transport.waitUntilClosed()
            }
        ) { server in
            LoopbackServer.announce(port: server.port ?? 0)
            await LoopbackServer.standardInputClosed()
        }
    }

    private static func tlsConfiguration(_ options: TransportBenchmarkOptions) throws -> TLSServerConfiguration {
        guard let certificate = options.certificateFile, let key = options.keyFile else {
            throw BenchmarkFailure("the TLS servers need --cert and --key")
        }
        return TLSServerConfiguration(certificateChain: [.file(path: certificate)], privateKey: .file(path: key))
    }
}
