import RpcTransport
import RpcTransportInMemory
import RpcTesting
import RpcTransportTesting
import Synchronization
import Testing

@Suite("ReconnectingConnection.abandon (in-memory transport)")
struct AbandonedCloseTests {
    @Test("the close abandon starts belongs to the connection: a later close waits for it")
    func closeAwaitsTheAbandonedClose() async throws {
        let peer = ScriptedPeer()
        let made = Mutex<[HeldCloseTransport]>([])
        let connection = ReconnectingConnection(
            configuration: quickConfiguration(),
            factory: { headers in
                let held = HeldCloseTransport(try await peer.factory(headers))
                made.withLock { $0.append(held) }
                return held
            },
            handler: .messages { _ in })
        try await connection.start()
        let held = try #require(made.withLock { $0.first })
        connection.abandon()
        try await waitUntil("the abandoned transport's close to begin") { held.closesStarted == 1 }
        let closing = Task {
            await connection.close()
            return held.closeFinished
        }
        #expect(!held.closeFinished)
        held.release()
        #expect(await closing.value, "the connection's close returned while the abandoned close still ran")
    }
}
