import Logging
import RpcTransport
import RpcTransportTesting
import ServiceLifecycle
import Testing
@testable import CapnWebCore
import CapnWeb
import CapnWebDemo
import CapnWebTestSupport

@Suite("Cap'n Web client session as a Service")
struct RpcSessionServiceTests {
    @Test(
        "A session a ServiceGroup runs answers calls, and the group's graceful shutdown ends its run by closing it with 1000",
        .timeLimit(.minutes(1)))
    func gracefulShutdownClosesNormally() async throws {
        let (clientEnd, serverEnd) = InMemoryTransport.makePair()
        // The close the server's end sees, however long it takes to arrive.
        let serverStates = serverEnd.stateUpdates()
        try await withCheckedPeers { peers in
            _ = peers.startServer(transport: serverEnd, main: TestAPI())
            // A session with a connector, as one opened from a URL (it reconnects through it).
            let session = try await RpcSession<Any>.connect(
                configuration: Configuration(), executor: nil, connector: { clientEnd })
            peers.client(session)
            let group = ServiceGroup(
                services: [session], logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
            try await withThrowingTaskGroup { tasks in
                tasks.addTask { try await group.run() }
                let square: Int = try await session.api.square(7)
                #expect(square == 49)
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
            }
            let closure = try await withTimeLimit(.seconds(10), "the server's end to close") { () async -> TransportClosure? in
                for await state in serverStates { if case .closed(let closed) = state { return closed } }
                return nil
            }
            #expect(closure?.code == .normal)
            #expect(closure?.initiatedLocally == false)
            #expect(closure?.isClean == true)
        }
    }
}
