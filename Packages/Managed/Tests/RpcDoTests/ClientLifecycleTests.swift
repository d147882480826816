@testable import RpcDo
import RpcDoTesting
import RpcTransport
import RpcTesting
import Testing

@Suite("RpcClient lifecycle")
struct ClientLifecycleTests {
    @Test("the answer of a timed-out call is awaited by a task the client owns, which disconnect ends")
    func noTaskOutlivesDisconnect() async throws {
        let server = InMemoryServer()
        let client = RpcClient(configuration: InMemoryServer.configuration(maxRetries: 0), transportFactory: server.factory)
        try await client.connect()
        let outcome = await result { () async throws -> String in try await client.api.slow(ms: 10_000).timeout(.milliseconds(100)) }
        #expect(outcome == .failure(.timeout))
        #expect(client.core.tasks.count == 1)
        await client.disconnect()
        #expect(client.core.tasks.count == 0)
    }

    @Test("a client dropped without disconnect closes its connection and stops reconnecting")
    func droppedClientCloses() async throws {
        let server = InMemoryServer()
        weak var connection: ReconnectingConnection?
        do {
            let client = RpcClient(configuration: InMemoryServer.configuration(), transportFactory: server.factory)
            connection = client.connection
            try await client.connect()
            let n: Int = try await client.api.square(n: 3)
            #expect(n == 9)
            #expect(server.openConnections == 1)
            #expect(connection != nil)
        }
        #expect(await waitUntil { server.openConnections == 0 })
        // Nothing can reconnect once the connection itself is gone: no task kept it alive.
        #expect(await waitUntil { connection == nil })
        #expect(server.connects == 1)
    }

    @Test("a scoped supervised connection closes its transport and finishes its state stream when the scope ends")
    func scopeClosesTransport() async throws {
        let peer = JSONRPCTestPeer()
        let (transport, states) = try await ReconnectingConnection.withReconnectingConnection(
            configuration: fastConfiguration().connectionConfiguration, factory: peer.factory, handler: .messages { _ in }
        ) { connection in
            (try #require(connection.currentTransport), connection.stateUpdates())
        }
        #expect(transport.state.isClosed)
        var seen: [String] = []
        for await state in states { seen.append(state.description) }
        #expect(seen == ["connected", "disconnected"])
    }
}
