import Logging
import RivetKit
@testable import RivetKitServer
import RpcDoTesting
import ServiceLifecycle
import Testing

@Suite("RivetKit client and connection as Services")
struct ClientServiceTests {
    /// Runs `service` in a `ServiceGroup`, runs `body` while it runs, then shuts the group down
    /// gracefully and waits until the service's run has returned.
    private static func whileRunning(_ service: any Service, _ body: () async throws -> Void) async throws {
        let group = ServiceGroup(
            services: [service], logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        try await withThrowingTaskGroup { tasks in
            tasks.addTask { try await group.run() }
            try await body()
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }

    /// The states of the server's end of the one realtime connection open now.
    private static func serverStates(_ server: InProcessServer) throws -> AsyncStream<TransportState> {
        try #require(server.openTransports.first).stateUpdates()
    }

    /// How the end whose `states` these are closed, once it has (`nil` when it ended otherwise).
    private static func closure(_ states: AsyncStream<TransportState>?) async throws -> TransportClosure? {
        let states = try #require(states)
        return try await withTimeLimit(.seconds(10), "the server's end to close") { () async -> TransportClosure? in
            for await state in states { if case .closed(let closed) = state { return closed } }
            return nil
        }
    }

    @Test(
        "A connection a ServiceGroup runs connects and serves actions, and the group's graceful shutdown ends its run by closing it with 1000 Disposed",
        .timeLimit(.minutes(1)))
    func connectionService() async throws {
        try await InProcessServer.with { (server: InProcessServer) async throws in
            let client = server.client()
            let connection = client.getOrCreate("counter", key: ["service"]).connect()
            var states: AsyncStream<TransportState>?
            try await Self.whileRunning(connection) {
                try await ClientTests.waitFor(connection, .connected)
                #expect(try await connection.action("increment", args: [2]) == 2)
                states = try Self.serverStates(server)
            }
            let closed = try await Self.closure(states)
            #expect(closed?.code == .normal)
            #expect(closed?.reason == "Disposed")
            #expect(connection.status == .idle)
            await client.close()
        }
    }

    @Test(
        "A client a ServiceGroup runs serves its shared connections, and the group's graceful shutdown ends its run by disposing them with 1000",
        .timeLimit(.minutes(1)))
    func clientService() async throws {
        try await InProcessServer.with { (server: InProcessServer) async throws in
            let client = server.client()
            let connection = client.acquireConnection(ActorOptions(name: "counter", key: ["shared-service"]))
            var states: AsyncStream<TransportState>?
            try await Self.whileRunning(client) {
                connection.start()
                try await ClientTests.waitFor(connection, .connected)
                #expect(try await connection.action("increment", args: [3]) == 3)
                #expect(try await client.getOrCreate("counter", key: ["shared-service"]).action("increment", args: [1]) == 4)
                states = try Self.serverStates(server)
            }
            let closed = try await Self.closure(states)
            #expect(closed?.code == .normal)
            #expect(closed?.reason == "Disposed")
        }
    }
}
