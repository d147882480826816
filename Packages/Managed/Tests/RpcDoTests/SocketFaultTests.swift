import CapnWeb
import Foundation
import RpcDo
import RpcTransport
import Synchronization
import RpcTesting
import Testing

@Suite("RpcClient under faults (real sockets on 127.0.0.1)")
struct SocketFaultTests {
    static func configuration(_ url: String, maxRetries: Int = 3) throws -> RpcClientConfiguration {
        var configuration = RpcClientConfiguration(
            url: try #require(URL(string: url)), timeout: 10, maxRetries: maxRetries, retryBaseDelay: 0.02, maxRetryDelay: 0.5)
        configuration.reconnect = .exponentialBackoff(maxAttempts: 100, baseDelay: .milliseconds(20), maxDelay: .milliseconds(200))
        return configuration
    }

    /// Connects a client, starts recording its connection states into `log` (until it
    /// disconnects), and checks a first call.
    private static func connectWatched(
        _ configuration: RpcClientConfiguration, log: StateLog
    ) async throws -> (client: RpcClient, watcher: Task<Void, Never>) {
        let client = RpcClient(configuration: configuration)
        try await client.connect()
        let states = client.connectionStates
        let watcher = Task { for await state in states { log.append(state) } }
        let before: Int = try await client.api.square(n: 2)
        #expect(before == 4)
        return (client, watcher)
    }

    @Test("a server that drops every connection and refuses for a while is reconnected to; later calls succeed")
    func serverRestart() async throws {
        let server = FaultyServer()
        try await server.run { url in
            let log = StateLog()
            let (client, watcher) = try await Self.connectWatched(try Self.configuration(url), log: log)
            server.setRefusing(true)
            await server.dropAll()
            #expect(await waitUntil { log.all.contains("reconnecting(2)") })
            server.setRefusing(false)
            #expect(await waitUntil { await client.isConnected })
            let after: Int = try await client.api.square(n: 3)
            #expect(after == 9)
            await client.disconnect()
            await watcher.value
            let all = log.all
            let reconnecting = try #require(all.firstIndex(of: "reconnecting(1)"))
            #expect(all[reconnecting...].contains("connected"))
        }
    }

    @Test("a server process killed and restarted on the same port is reconnected to; later calls succeed")
    func realRestart() async throws {
        let log = StateLog()
        let (client, port, watcher) = try await FaultyServer().run { url in
            let (client, watcher) = try await Self.connectWatched(try Self.configuration(url), log: log)
            return (client, try #require(URL(string: url)?.port), watcher)
        }
        #expect(await waitUntil { log.all.contains("reconnecting(1)") })
        try await FaultyServer().run(port: port) { _ in
            #expect(await waitUntil { await client.isConnected })
            let after: Int = try await client.api.square(n: 5)
            #expect(after == 25)
        }
        await client.disconnect()
        await watcher.value
        let reconnecting = try #require(log.all.firstIndex(of: "reconnecting(1)"))
        #expect(log.all[reconnecting...].contains("connected"))
    }

    @Test("in flight during a drop: a plain call fails with connectionLost, an idempotent one is retried")
    func inFlightDuringDrop() async throws {
        let server = FaultyServer()
        try await server.run { url in
            let client = RpcClient(configuration: try Self.configuration(url))
            try await client.connect()
            async let plain: Result<String, RpcError> = result { try await client.api.slow(ms: 3000) }
            async let safe: Result<String, RpcError> = result { try await client.api.slow(ms: 1500).idempotent() }
            #expect(await waitUntil { server.service.calls("slow") == 2 })
            await server.dropAll()
            let (plainOutcome, safeOutcome) = await (plain, safe)
            if case .failure(.connectionLost) = plainOutcome {} else {
                Issue.record("expected connectionLost, got \(plainOutcome)")
            }
            #expect(safeOutcome == .success("done"))
            #expect(server.service.calls("slow") == 3)
            await client.disconnect()
        }
    }

    @Test("a header changed at runtime reaches the server with the next WebSocket upgrade")
    func headerOnUpgrade() async throws {
        let server = FaultyServer()
        try await server.run { url in
            var configuration = try Self.configuration(url)
            configuration.headers = ["X-Token": "one"]
            let client = RpcClient(configuration: configuration)
            try await client.connect()
            #expect(server.upgradeHeaders.last?["x-token"] == "one")
            await client.updateHeader("X-Token", value: "two")
            #expect(server.upgradeHeaders.count == 2)
            #expect(server.upgradeHeaders.last?["x-token"] == "two")
            #expect(await client.isConnected)
            await client.disconnect()
        }
    }

    /// Connects through a proxy that can go silent, with WebSocket keepalive pings every
    /// `keepalive` seconds (none when `nil`), answering within 0.3 s.
    private static func throughStallingProxy(
        keepalive: TimeInterval?,
        _ body: (RpcClient, StallingProxy, StateLog) async throws -> Void
    ) async throws {
        let server = FaultyServer()
        try await server.run { url in
            let serverPort = try #require(URL(string: url)?.port)
            try await StallingProxy.run(to: serverPort) { proxy in
                var configuration = try Self.configuration("ws://127.0.0.1:\(proxy.port)/rpc")
                configuration.keepaliveInterval = keepalive
                configuration.keepaliveTimeout = 0.3
                let log = StateLog()
                let (client, watcher) = try await Self.connectWatched(configuration, log: log)
                try await body(client, proxy, log)
                await client.disconnect()
                await watcher.value
            }
        }
    }

    @Test("with keepalive on, a server that goes silent without closing is noticed and reconnected to")
    func keepaliveNoticesSilentServer() async throws {
        try await Self.throughStallingProxy(keepalive: 0.1) { client, proxy, log in
            proxy.stallOpenConnections(for: .seconds(30))
            #expect(await waitUntil { log.all.contains("reconnecting(1)") })
            #expect(await waitUntil { await client.isConnected })
            let after: Int = try await client.api.square(n: 3)
            #expect(after == 9)
        }
    }

    /// The control for the test above: the stalled connection stays open, so only the pings
    /// can tell. The stall ends after a second, and a call made during it is answered then.
    @Test("with keepalive off, a connection that goes silent for a second without closing still looks connected")
    func silentServerUnnoticedWithoutKeepalive() async throws {
        try await Self.throughStallingProxy(keepalive: nil) { client, proxy, log in
            proxy.stallOpenConnections(for: .seconds(1))
            let held: Int = try await client.api.square(n: 3)
            #expect(held == 9)
            // The call went through the stall: the proxy held its bytes and passed them on
            // when the stall ended.
            #expect(proxy.heldAndReleased >= 1)
            #expect(await client.isConnected)
            #expect(!log.all.contains("reconnecting(1)"))
        }
    }

    @Test("withConnection connects, runs the operation and disconnects even when it throws")
    func scopedConnection() async throws {
        let server = FaultyServer()
        try await server.run { url in
            struct Stop: Error {}
            let kept = Recorder()
            await #expect(throws: Stop.self) {
                try await RpcClient.withConnection(to: url) { client in
                    kept.set(client)
                    #expect(await client.isConnected)
                    throw Stop()
                }
            }
            let client = try #require(kept.client)
            #expect(await client.isConnected == false)
            #expect(client.status.state.description == "disconnected")
        }
    }
}
