import CapnWeb
import CapnWebMacros
import LoopbackSupport
import RpcTransportNIO

/// The server side: `SessionBenchmarks --serve session` serves ``BenchAPI`` over Cap'n Web
/// sessions on a free loopback port, `--serve session-macro` serves ``MacroBenchAPI`` (the same
/// `square`, its target made by `@Rpc`), `--serve session-deflate` serves ``BenchAPI`` with
/// permessage-deflate accepted (the default configuration, as `withRpcServer` uses);
/// `--serve bare` runs the bare SwiftNIO echo. All print `PORT <n>` and serve until standard
/// input closes.
enum SessionServer {
    static func serve(_ kind: SessionServerKind) async throws {
        switch kind {
        case .bare:
            try await LoopbackServer.serveBareEcho(tls: nil)
        case .session:
            try await serveSessions { BenchAPI() }
        case .sessionMacro:
            try await serveSessions { MacroBenchAPI() }
        case .sessionDeflate:
            try await serveSessions(deflate: .default) { BenchAPI() }
        }
    }

    /// Serves sessions and drives them from this process: `sequential` sequential calls, then
    /// `calls` calls with `window` in flight.
    static func profile(calls: Int, sequential: Int, window: Int) async throws {
        try await withSessionServer { port in
            let driver = try await SessionClientDriver.connect(port: port, argument: SessionBenchmarks.argument)
            _ = try await driver.sequential(count: sequential)
            _ = try await driver.concurrent(total: max(calls, window), window: window)
            await driver.close()
        }
    }

    private static func serveSessions(
        deflate: PerMessageDeflateConfiguration? = nil,
        main: @escaping @Sendable () -> any RpcTarget
    ) async throws {
        try await withSessionServer(deflate: deflate, main: main) { port in
            LoopbackServer.announce(port: port)
            await LoopbackServer.standardInputClosed()
        }
    }

    /// Serves sessions of `main` (``BenchAPI`` unless given) on a free loopback port while `body`
    /// runs with that port; permessage-deflate is accepted when `deflate` is set.
    private static func withSessionServer(
        deflate: PerMessageDeflateConfiguration? = nil,
        main: @escaping @Sendable () -> any RpcTarget = { BenchAPI() },
        _ body: (Int) async throws -> Void
    ) async throws {
        var configuration = TransportServerConfiguration(address: .host("127.0.0.1", port: 0), deflate: deflate)
        configuration.shutdownGracePeriod = .seconds(1)
        try await withTransportServer(
            configuration: configuration,
            onConnection: { transport, _ in
                let session = RpcSession<Any>.start(transport: transport, main: main())
                _ = await transport.waitUntilClosed()
                await session.close()
            }
        ) { server in
            try await body(server.port ?? 0)
        }
    }
}

/// The servers the benchmark starts, each in a process of its own.
enum SessionServerKind: String, CaseIterable, Sendable {
    /// Cap'n Web sessions serving ``BenchAPI``.
    case session
    /// Cap'n Web sessions serving ``MacroBenchAPI``.
    case sessionMacro = "session-macro"
    /// Cap'n Web sessions serving ``BenchAPI``, with permessage-deflate accepted.
    case sessionDeflate = "session-deflate"
    /// SwiftNIO's WebSocket upgrader, frame decoder and encoder and a minimal echo handler.
    case bare
}
