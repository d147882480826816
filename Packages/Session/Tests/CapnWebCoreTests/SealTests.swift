import Synchronization
import Testing
import CapnWebTestSupport
import CapnWebDemo
import RpcTransport
import RpcTransportTesting
@testable import CapnWebCore

/// Sealing a session (an HTTP batch whose request is leaving) waits for the flush under way to
/// write what was sent before the seal, parked until that flush ends rather than polling.
@Suite("Sealing a session")
struct SealTests {
    @Test("seal waits, parked, for the flush under way, and the end of that flush resumes it", .timeLimit(.minutes(1)))
    func sealWaitsForTheFlush() async throws {
        let (clientEnd, serverEnd) = InMemoryTransport.makePair()
        let held = HeldWriteTransport(clientEnd)
        try await withSessionPair(server: TestAPI(), transports: (held, serverEnd)) { pair in
            let core = try #require(pair.client.connection.currentCore())
            // A call sent from a thread of its own, whose flush stops inside the transport's write.
            held.holdNextWrite()
            async let sent: Void = onOwnThread {
                _ = core.push(.call(target: core.mainImport(), path: ["square"], arguments: [.integer(3)]))
            }
            try await waitUntil("the flush to reach the transport") { held.held == 1 }

            let sealed = Recorder<Bool>()
            let sealing = Task {
                await core.seal(.failed(.connectionLost(RpcErrorValue(message: "the request has left"))))
                sealed.append(true)
            }
            // Parked on a continuation, not returned: the flush that holds the call is still
            // under way.
            try await waitUntil("the seal to wait for the flush") { core.state.withLock { $0.flushWaiters.count } == 1 }
            #expect(sealed.count == 0)
            #expect(held.writes == 0)

            held.release()
            await sealing.value
            // Resumed by the flush's end, once what was sent before the seal was written.
            #expect(sealed.count == 1)
            #expect(held.writes >= 1)
            #expect(core.state.withLock { $0.flushWaiters.isEmpty })
            try await sent

            // A call made after the seal fails at once with the seal's rejection.
            await #expect(throws: RpcError.self) {
                let _: Double = try await pair.client.api.square(4)
            }
        }
    }

    @Test("seal returns at once when no flush is under way")
    func sealReturnsAtOnce() async throws {
        try await withSessionPair(server: TestAPI()) { pair in
            let core = try #require(pair.client.connection.currentCore())
            await core.seal(.failed(.connectionLost(RpcErrorValue(message: "the request has left"))))
            #expect(core.state.withLock { $0.sealed != nil && $0.flushWaiters.isEmpty })
        }
    }

    @Test("the session's end resumes a seal waiting for a flush that is held", .timeLimit(.minutes(1)))
    func endResumesTheSeal() async throws {
        let (clientEnd, serverEnd) = InMemoryTransport.makePair()
        let held = HeldWriteTransport(clientEnd)
        // The held write goes through after the client's end (its flush had taken it), and the
        // ended client never releases it: the server keeps that push's export.
        let pushKept = SettledTables(client: .mainOnly, server: RpcStats(imports: 1, exports: 2))
        try await withSessionPair(server: TestAPI(), transports: (held, serverEnd), expecting: pushKept) { pair in
            let core = try #require(pair.client.connection.currentCore())
            held.holdNextWrite()
            async let sent: Void = onOwnThread {
                _ = core.push(.call(target: core.mainImport(), path: ["square"], arguments: [.integer(3)]))
            }
            try await waitUntil("the flush to reach the transport") { held.held == 1 }
            let sealing = Task {
                await core.seal(.failed(.connectionLost(RpcErrorValue(message: "the request has left"))))
            }
            try await waitUntil("the seal to wait for the flush") { core.state.withLock { $0.flushWaiters.count } == 1 }
            core.end(.failed(.connectionLost(RpcErrorValue(message: "gone"))))
            // Returns with the write still held: the end resumed it.
            await sealing.value
            #expect(held.held == 1)
            held.release()
            try await sent
        }
    }
}
