import Logging
import RivetKit
import RivetKitServer
import RpcDoTesting
import RpcTransport
import ServiceLifecycle
import Testing

@Suite("Actor server as a Service")
struct ActorServerServiceTests {
    @Test("A graceful shutdown of the group stops accepting, lets the action in flight answer, then closes the connection with 1001")
    func actionInFlightFinishes() async throws {
        let gate = ServerLimitTests.Gate()
        var registry = ActorRegistry()
        registry.register(
            ActorDefinition("gated", initialState: 0)
                .action("gate") { (context: inout ActorContext<Int>) in
                    await gate.pass()
                    context.state += 1
                    return context.state
                })
        let (started, announce) = AsyncStream<ActorServer>.makeStream()
        let service = ActorServerService(
            registry: registry, store: try SQLiteActorStore.inMemory(), configuration: ServerHarness.configuration()
        ) { server in announce.yield(server) }
        let group = ServiceGroup(services: [service], logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        try await withThrowingTaskGroup { tasks in
            tasks.addTask { try await group.run() }
            var servers = started.makeAsyncIterator()
            guard let server = await servers.next() else {
                Issue.record("the server did not start")
                return
            }
            let socket = try await ServerHarness.connect(server, "/gateway/gated/connect?rvt-method=getOrCreate&rvt-key=g")
            _ = try await socket.nextMessage()
            try await socket.send(.actionRequest(id: 0, name: "gate", args: []))
            try await waitUntil("the action to wait at the gate") { gate.waiting > 0 }
            await group.triggerGracefulShutdown()
            try await waitUntil("the server refuses new connections") {
                do {
                    let extra = try await ServerHarness.connect(server, "/gateway/gated/connect?rvt-method=getOrCreate&rvt-key=x")
                    await extra.transport.close(code: .normal, reason: "")
                    return false
                } catch {
                    return true
                }
            }
            gate.open()
            #expect(try await socket.nextMessage() == .actionResponse(id: 0, output: .integer(1)))
            #expect(try await socket.closure().code == .goingAway)
            try await tasks.waitForAll()
        }
    }
}
