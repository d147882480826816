import Logging
import RpcTransport
import RpcTransportTesting
import ServiceLifecycle
import Synchronization
import Testing
@testable import CapnWebCore
import CapnWeb
import CapnWebDemo
import CapnWebTestSupport

/// The close code a session's end carries, however it is wrapped.
func closeCode(of error: (any Error)?) -> CloseCode? {
    switch error {
    case let error as TransportError: error.closeCode
    case let error as SessionClosed: error.closure.code
    case let error as RpcError:
        if case .connectionLost(let underlying) = error { closeCode(of: underlying) } else { nil }
    default: nil
    }
}

/// Runs a `ServiceGroup` with one ``RpcServerService`` serving the test API, and `body` with the
/// running server and the group; the group is shut down gracefully when `body` has not.
private func withServiceGroup(
    drainTimeout: Duration,
    _ body: (RpcServer, ServiceGroup) async throws -> Void
) async throws {
    let (started, announce) = AsyncStream<RpcServer>.makeStream()
    let service = RpcServerService(drainTimeout: drainTimeout, main: { _ in TestAPI() }) { server in
        announce.yield(server)
    }
    let group = ServiceGroup(
        services: [service], logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
    try await withThrowingTaskGroup { tasks in
        tasks.addTask { try await group.run() }
        var servers = started.makeAsyncIterator()
        guard let server = await servers.next() else {
            Issue.record("the server did not start")
            return
        }
        try await body(server, group)
        await group.triggerGracefulShutdown()
        try await tasks.waitForAll()
    }
}

@Suite("Cap'n Web server as a Service")
struct RpcServerServiceTests {
    @Test("A graceful shutdown of the group lets 100 calls in flight finish, then closes the session with 1001")
    func callsInFlightFinish() async throws {
        try await withServiceGroup(drainTimeout: .seconds(30)) { server, group in
            try await withCheckedPeers { peers in
                let session = try await RpcSession<Any>.connect(to: server.webSocketURL)
                peers.client(session)
                peers.servers("server", expecting: peers.expected.server) { server.sessions.map { $0.getStats() } }
                let ended = Mutex<(any Error)??>(nil)
                session.onDisconnect { error in ended.withLock { $0 = .some(error) } }
                try await withThrowingTaskGroup(of: Int.self) { calls in
                    for index in 0..<100 {
                        calls.addTask {
                            let value: Int = try await session.api.delayed(300, index)
                            return value
                        }
                    }
                    // Every call has reached the server (an export each, beside the main one).
                    try await waitUntil("100 calls in flight on the server") {
                        server.sessions.first.map { $0.getStats().exports >= 101 } ?? false
                    }
                    await group.triggerGracefulShutdown()
                    var answers: Set<Int> = []
                    for try await value in calls { answers.insert(value) }
                    #expect(answers == Set(0..<100))
                }
                try await waitUntil("the session ended") { ended.withLock { $0 != nil } }
                #expect(closeCode(of: ended.withLock { $0 ?? nil }) == .goingAway)
            }
        }
    }

    @Test("A call still running at the drain timeout fails with connectionLost, and the session closes with 1001")
    func drainTimeout() async throws {
        try await withServiceGroup(drainTimeout: .milliseconds(200)) { server, group in
            try await withCheckedPeers { peers in
                let session = try await RpcSession<Any>.connect(to: server.webSocketURL)
                peers.client(session)
                peers.servers("server", expecting: peers.expected.server) { server.sessions.map { $0.getStats() } }
                let hanging = Task {
                    let _: RpcPayload = try await session.api.hang()
                }
                try await waitUntil("the call is on the server") {
                    server.sessions.first.map { $0.getStats().exports >= 2 } ?? false
                }
                await group.triggerGracefulShutdown()
                let outcome = await hanging.result
                guard case .failure(let error) = outcome, let rpcError = error as? RpcError,
                    case .connectionLost(let underlying) = rpcError
                else {
                    Issue.record("expected connectionLost, got \(outcome)")
                    return
                }
                #expect(closeCode(of: underlying) == .goingAway)
            }
        }
    }
}
