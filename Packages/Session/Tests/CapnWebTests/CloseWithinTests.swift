import Foundation
import RpcTransportTesting
import Testing
import CapnWebTestSupport
import CapnWeb

/// `RpcSession.close(within:)` against a server that never answers a close frame: the close
/// is cut at the limit instead of waiting for the transport's close timeout (5 seconds).
@Suite("Closing a session within a limit")
struct CloseWithinTests {
    @Test("close(within:) sends a close frame and cuts the connection once the limit passes unanswered")
    func closeWithinLimit() async throws {
        try await withCheckedPeers { peers in
            try await HostileWebSocketServer.run(answer: { _ in [] }) { server in
                let url = try #require(URL(string: server.url))
                let session = try await RpcSession<Any>.connect(to: url)
                peers.client(session)
                try await withTimeLimit(.seconds(3), "close(within: 0.2 seconds)") {
                    await session.close(within: .milliseconds(200))
                }
                #expect(server.observations.closeFrames == 1)
                #expect(await waitUntil { server.observations.ended == 1 })
            }
        }
    }

    @Test("close(within: .zero) cuts the connection at once and fails the calls still waiting")
    func closeAtOnce() async throws {
        try await withCheckedPeers { peers in
            try await HostileWebSocketServer.run(answer: { _ in [] }) { server in
                let url = try #require(URL(string: server.url))
                let session = try await RpcSession<Any>.connect(to: url)
                peers.client(session)
                let pending = Task { () -> Bool in
                    do {
                        let _: Double = try await session.api.square(5)
                        return false
                    } catch {
                        return true
                    }
                }
                #expect(await waitUntil { server.observations.frames.contains(#"["pull",1]"#) })
                try await withTimeLimit(.seconds(3), "close(within: .zero)") {
                    await session.close(within: .zero)
                }
                #expect(await pending.value)
                #expect(await waitUntil { server.observations.ended == 1 })
            }
        }
    }
}
