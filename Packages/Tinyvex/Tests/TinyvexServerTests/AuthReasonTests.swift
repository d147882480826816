import RpcWire
import Testing
import TinyvexProtocol
import TinyvexServer

/// A refused token and an expired one are told apart in the `TVX006` answer, so a client knows
/// when to fetch a new token.
@Suite("Tinyvex auth: refused and expired tokens", .timeLimit(.minutes(1)))
struct AuthReasonTests {
    @Test("a token the hook finds expired answers TVX006 with reason tokenExpired, a refused one tokenRefused, at connect and at setToken; the connection stays open")
    func reasons() async throws {
        let configuration = TinyvexServerConfiguration(authenticate: { token in
            switch token {
            case "expired": throw TinyvexServerError.tokenExpired()
            case "broken": throw CancellationError()
            case "good": return "alice"
            default: return nil
            }
        })
        try await TinyvexServer.withEmbeddedServer(schema: TinyvexDemoSchema.schema(), configuration: configuration) { server in
            let peer = InMemoryPeer(serving: server)
            let expired = try await peer.call(TinyvexMethod.connect, ["token": "expired"])
            #expect(expired["error"]?["data"]?["code"] == "TVX006")
            #expect(expired["error"]?["data"]?["details"]?["reason"] == "tokenExpired")
            for token in ["nobody", "broken"] {
                let refused = try await peer.call(TinyvexMethod.setToken, ["token": .string(token)])
                #expect(refused["error"]?["data"]?["code"] == "TVX006")
                #expect(refused["error"]?["data"]?["details"]?["reason"] == "tokenRefused")
            }
            let good = try await peer.call(TinyvexMethod.setToken, ["token": "good"])
            #expect(good.result?["identity"] == "alice")
            await peer.close()
        }
    }
}
