import RpcTransport
import Testing

@Suite("Transport types as the Cap'n Web seed spells them")
struct SeedSpellingTests {
    @Test("TLSConfiguration(minimumVersion: .TLSv12, pinnedCertificates:) trusts exactly the pinned certificates")
    func pinnedTLSConfiguration() {
        let pinned: [CertificateSource] = [.file(path: "api-cert.pem"), .pem(Array("PEM".utf8))]
        let tls = TLSConfiguration(minimumVersion: .TLSv12, pinnedCertificates: pinned)
        #expect(tls.trustRoots == .certificates(pinned))
        #expect(tls.minimumVersion == .v1_2)
        #expect(tls.serverCertificateVerification == .fullVerification)
        #expect(TLSVersion.TLSv13 == .v1_3)
        var optional: TLSClientConfiguration? = nil
        optional = .init(minimumVersion: .TLSv13, pinnedCertificates: pinned)
        #expect(optional?.minimumVersion == .v1_3)
    }

    @Test("ConnectionState.disconnected and .error(_) are the disconnected case, without and with the error")
    func disconnectedSpellings() {
        struct Failure: Error {}
        guard case .disconnected(nil) = ConnectionState.disconnected else {
            Issue.record("expected .disconnected(nil)")
            return
        }
        guard case .disconnected(let error?) = ConnectionState.error(Failure()), error is Failure else {
            Issue.record("expected .disconnected(Failure)")
            return
        }
        #expect(ConnectionState.disconnected.description == "disconnected")
    }

    @Test("a reconnecting connection that was not started reports connecting, and starting it publishes connected next")
    func notStartedIsConnecting() async throws {
        let peer = ScriptedPeer()
        let connection = ReconnectingConnection(configuration: quickConfiguration(), factory: peer.factory, handler: .messages { _ in })
        #expect(connection.state.description == "connecting")
        let states = Collected<String>()
        connection.onStateChange { states.append($0.description) }
        let stream = connection.stateUpdates()
        try await connection.start()
        await connection.close()
        var seen: [String] = []
        for await state in stream { seen.append(state.description) }
        #expect(seen == ["connecting", "connected", "disconnected"])
        #expect(states.all == ["connected", "disconnected"])
    }
}
