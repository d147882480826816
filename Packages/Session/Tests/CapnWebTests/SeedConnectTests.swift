import Foundation
import Testing
import CapnWebSocketTestSupport
import RpcTransportTesting
import CapnWeb

@Suite("Connecting as seed 001's Quick Start writes it")
struct SeedConnectTests {
    @Test("RpcSession.connect(to:) with a string and no type gives an untyped session that calls the server")
    func untypedStringConnect() async throws {
        try await withSocketPeers(main: { _ in Squarer() }) { peers in
            let server = peers.server
            // As the seed writes it: `let session = try await RpcSession.connect(to: "wss://…")`.
            let session = try await RpcSession.connect(to: server.webSocketURL.absoluteString)
            peers.track(session)
            let untyped: RpcSession<Any> = session
            let n: Int = try await untyped.api.square(12)
            #expect(n == 144)
            await peers.expectSettled(session)
            await session.close()
            try await waitUntil("the server to forget the session") { server.sessions.isEmpty }
        }
    }

    @Test("a typed session connects with a string URL, and text that is no URL fails with the transport's invalidTarget")
    func typedStringConnect() async throws {
        try await withSocketPeers(main: { _ in Squarer() }) { peers in
            let server = peers.server
            let session = try await RpcSession<Squarer>.connect(to: server.webSocketURL.absoluteString) { config in
                config.timeout = .seconds(5)
            }
            let n: Int = try await session.api.square(3)
            #expect(n == 9)
            await peers.expectSettled(session)
            await session.close()
            await #expect {
                _ = try await RpcSession.connect(to: "ws://exa mple.com:bad port/")
            } throws: { error in
                guard case .connectionLost(let underlying as TransportError) = error as? RpcError else { return false }
                return underlying.code == .invalidTarget
            }
        }
    }
}
