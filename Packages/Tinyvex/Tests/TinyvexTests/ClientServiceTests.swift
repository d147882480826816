import Logging
import RpcDoTesting
import RpcTransport
import ServiceLifecycle
import Testing
import Tinyvex

@Suite("Tinyvex client as a Service", .timeLimit(.minutes(1)))
struct ClientServiceTests {
    @Test("A client a ServiceGroup runs answers mutations, and the group's graceful shutdown ends its run by closing its link with 1000")
    func gracefulShutdownClosesNormally() async throws {
        try await withInMemoryServer { server in
            let client = try makeClient(server)
            let group = ServiceGroup(
                services: [client], logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
            var serverStates: AsyncStream<TransportState>?
            try await withThrowingTaskGroup { tasks in
                tasks.addTask { try await group.run() }
                let id = try await client.mutation(
                    "messages.send", args: Send(channel: "general", author: "ann", text: "hi"), as: Int64.self)
                #expect(id > 0)
                serverStates = try #require(server.ends.first).stateUpdates()
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
            }
            let states = try #require(serverStates)
            let closure = try await withTimeLimit(.seconds(10), "the server's end to close") { () async -> TransportClosure? in
                for await state in states { if case .closed(let closed) = state { return closed } }
                return nil
            }
            #expect(closure?.code == .normal)
            #expect(closure?.initiatedLocally == false)
            #expect(server.ends.count == 1)
            await #expect(throws: TinyvexError.self) {
                _ = try await client.mutation("messages.send", args: Send(channel: "general", author: "ann", text: "late"), as: Int64.self)
            }
        }
    }
}
