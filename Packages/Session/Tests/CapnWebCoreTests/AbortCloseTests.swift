import CapnWebTestSupport
import RpcTransport
import RpcTransportTesting
import Synchronization
import Testing
@testable import CapnWebCore

/// The close of the transport an abort starts belongs to the session: closing the session
/// waits for it.
@Suite("The close after an abort")
struct AbortCloseTests {
    @Test("closing a session the peer aborted returns once the transport's close the abort started has finished")
    func closeAwaitsTheAbortsClose() async throws {
        try await withCheckedPeers { peers in
            let (a, b) = InMemoryTransport.makePair()
            let held = HeldCloseTransport(a)
            let client = peers.startClient(transport: held)
            let peer = FaultPeer(b)
            try peer.send(#"["abort","the server gave up"]"#)
            try await waitUntil("the abort's close to begin") { held.closesStarted == 1 }
            let closing = Task {
                await client.close()
                return held.closeFinished
            }
            held.release()
            #expect(await closing.value, "the session's close returned while the abort's close still ran")
            try await waitUntil("the peer to see the close") { peer.closure != nil }
            #expect(peer.closure?.code == .applicationError)
        }
    }

    @Test("closing a session the peer aborted within a limit cuts a transport whose close does not finish")
    func closeWithinCutsTheAbortsClose() async throws {
        try await withCheckedPeers { peers in
            let (a, b) = InMemoryTransport.makePair()
            let held = HeldCloseTransport(a)
            let client = peers.startClient(transport: held)
            let peer = FaultPeer(b)
            try peer.send(#"["abort","the server gave up"]"#)
            try await waitUntil("the abort's close to begin") { held.closesStarted == 1 }
            // The close is never let go: only the cut can end the session's close.
            await client.close(within: .milliseconds(50))
            #expect(held.state.isClosed)
            #expect(held.closeFinished)
        }
    }
}
