import Logging
import RpcDo
import RpcDoTesting
import RpcTransport
import ServiceLifecycle
import Testing

@Suite("RpcClient as a Service")
struct RpcClientServiceTests {
    @Test(
        "A client a ServiceGroup runs connects and answers calls, and the group's graceful shutdown ends its run by closing the connection with 1000",
        .timeLimit(.minutes(1)))
    func gracefulShutdownClosesNormally() async throws {
        let server = InMemoryServer()
        let client = RpcClient(configuration: InMemoryServer.configuration(), transportFactory: server.factory)
        let group = ServiceGroup(
            services: [client], logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        try await withThrowingTaskGroup { tasks in
            tasks.addTask { try await group.run() }
            // The service connects.
            for await state in client.connectionStates where state.isConnected { break }
            let square: Int = try await client.api.square(n: 6)
            #expect(square == 36)
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        #expect(server.connects == 1)
        let end = try #require(server.serverEnds.first)
        let closure = try await withTimeLimit(.seconds(10), "the server's end to close") { () async -> TransportClosure? in
            for await state in end.stateUpdates() { if case .closed(let closed) = state { return closed } }
            return nil
        }
        #expect(closure?.code == .normal)
        #expect(closure?.initiatedLocally == false)
        #expect(await client.isConnected == false)
    }

    @Test("A client whose server cannot be reached stops its service with the connect failure", .timeLimit(.minutes(1)))
    func unreachableServerFailsTheService() async throws {
        let server = InMemoryServer()
        server.setRefusing(true)
        var configuration = InMemoryServer.configuration()
        configuration.reconnect = .exponentialBackoff(maxAttempts: 2, baseDelay: .milliseconds(10), maxDelay: .milliseconds(20))
        let client = RpcClient(configuration: configuration, transportFactory: server.factory)
        await #expect(throws: RpcError.self) { try await client.run() }
    }
}
