import Logging
import RpcDoTesting
import RpcTransport
import RpcTransportNIO
import ServiceLifecycle
import Testing
import TinyvexProtocol
@testable import TinyvexServer

@Suite("Tinyvex server as a Service")
struct TinyvexServerServiceTests {
    @Test("A graceful shutdown of the group waits for the requests being answered, then closes the connection with 1001")
    func gracefulShutdownGoesAway() async throws {
        let (started, announce) = AsyncStream<TinyvexServer>.makeStream()
        let service = TinyvexServerService(schema: TinyvexDemoSchema.schema()) { server in announce.yield(server) }
        let group = ServiceGroup(services: [service], logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        try await withThrowingTaskGroup { tasks in
            tasks.addTask { try await group.run() }
            var servers = started.makeAsyncIterator()
            guard let server = await servers.next() else {
                Issue.record("the server did not start")
                return
            }
            let peer = try await RawPeer(url: server.url)
            try await peer.call(TinyvexMethod.connect, ["clientId": "client-1"])
            // A request counted in flight holds the close until it ends.
            server.engine.requestsInFlight.begin()
            await group.triggerGracefulShutdown()
            try await waitUntil("the server refuses new connections") {
                do {
                    let extra = try await RawPeer(url: server.url)
                    await extra.close()
                    return false
                } catch {
                    return true
                }
            }
            let answer = try await send(peer, "r1", text: "during the drain")
            #expect(answer.result?["seq"] != nil)
            server.engine.requestsInFlight.end()
            #expect(await peer.transport.waitUntilClosed().code == .goingAway)
            try await tasks.waitForAll()
        }
    }
}
