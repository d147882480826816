import Foundation
import Synchronization
import Testing
import CapnWebSocketTestSupport
import RpcTransportTesting
import CapnWeb

// Seed 001's "Security": transport security (TLS with a pinned certificate), authentication
// and capability security.

@Suite("Seed 001: security")
struct SecurityExamples {
    @Test("TLS with minimumVersion .TLSv12 and a pinned certificate connects to the server presenting it")
    func transportSecurity() async throws {
        let certificates = try await SeedCertificates()
        try await withSeedServer(tls: certificates.serverTLS) { server, backend, peers in
            // Adapted: `url` is the test server's wss address, and `myCertificate` (not
            // declared in the seed) is the certificate the server presents, read from the
            // test's bundle.
            let url = server.webSocketURL
            let myCertificate = CertificateSource.resource(named: "api-cert", in: certificates.bundle)

            let session = try await RpcSession<API>.connect(to: url) { config in
                config.tls = .init(
                    minimumVersion: .TLSv12,
                    pinnedCertificates: [myCertificate]
                )
            }

            let done: String = try await session.api.doWork()
            #expect(done == "done")
            #expect(backend.count("doWork") == 1)
            #expect(CertificateSource.resource(named: "api-cert.pem", in: certificates.bundle) == myCertificate)
            await peers.expectSettled(session)
            await session.close()
        }
    }

    @Test("the pinned certificate is the one checked: a server presenting another certificate is refused")
    func pinIsChecked() async throws {
        let certificates = try await SeedCertificates()
        try await withSeedServer(tls: certificates.serverTLS) { server, backend, peers in
            let otherCertificate = CertificateSource.resource(named: "other-cert", in: certificates.bundle)
            await #expect {
                _ = try await RpcSession<API>.connect(to: server.webSocketURL) { config in
                    config.tls = .init(minimumVersion: .TLSv12, pinnedCertificates: [otherCertificate])
                }
            } throws: { error in
                guard case .connectionLost(let underlying as TransportError) = error as? RpcError else { return false }
                return underlying.code == .certificateUntrusted
            }
            // The same in the builder form, with the seed's `PinnedCertificates(bundle:named:)`.
            let bundle = certificates.bundle
            await #expect {
                _ = try await RpcSession<API>.connect(to: server.webSocketURL) {
                    TLS { PinnedCertificates(bundle: bundle, named: "other-cert") }
                }
            } throws: { error in
                guard case .connectionLost(let underlying as TransportError) = error as? RpcError else { return false }
                return underlying.code == .certificateUntrusted
            }
            #expect(backend.calls.isEmpty)
            #expect(server.sessionCount == 0)
        }
    }

    @Test("a pinned certificate missing from the bundle fails the connect with tlsConfigurationInvalid naming the file")
    func missingPinnedCertificate() async throws {
        let certificates = try await SeedCertificates()
        try await withSeedServer(tls: certificates.serverTLS) { server, backend, peers in
            let bundle = certificates.bundle
            await #expect {
                _ = try await RpcSession<API>.connect(to: server.webSocketURL) {
                    TLS { PinnedCertificates(bundle: bundle, named: "api-cert-2024") }
                }
            } throws: { error in
                guard case .connectionLost(let underlying as TransportError) = error as? RpcError else { return false }
                return underlying.code == .tlsConfigurationInvalid && underlying.message.contains("api-cert-2024.pem")
            }
            #expect(backend.calls.isEmpty)
        }
        // The seed's line as written, with `.main`: the test runner's main bundle has no such
        // resource, so the pin is the path it would have, and connecting with it would fail.
        let seedLine = builtConfiguration {
            TLS {
                PinnedCertificates(bundle: .main, named: "api-cert")
            }
        }
        let expected = CertificateSource.resource(named: "api-cert", in: .main)
        #expect(seedLine.tls?.trustRoots == .certificates([expected]))
        guard case .file(let path) = expected else {
            Issue.record("expected a file source, got \(expected)")
            return
        }
        #expect(path.hasSuffix("/api-cert.pem"))
    }

    @Test("a bearer token in the headers is what the server admits; authenticate(token:) gives a capability after connecting")
    func authentication() async throws {
        let token = "secret"  // Adapted: the seed's `token` and `apiKey` are not declared there.
        let apiKey = "good-token"
        let admit: @Sendable (RpcConnectionInfo) async -> RpcAdmission = { info in
            info.header("Authorization") == "Bearer secret" ? .accept : .refuse(status: 401)
        }
        try await withSeedServer(admit: admit) { server, backend, peers in
            // Adapted: `url` is the test server's address.
            let url = server.webSocketURL

            // Bearer token
            let session = try await RpcSession<API>.connect(to: url) { config in
                config.headers["Authorization"] = "Bearer \(token)"
            }

            // Adapted: the seed's lines in a scope of their own, so that the refs they hold are
            // released before the tables are checked.
            do {
                // Or authenticate after connection
                // Adapted: the result's type is written: a `Ref` to the capability the call
                // returned (awaiting it surfaces a failed authentication here).
                let authedAPI: Ref<Any> = try await session.api.authenticate(token: apiKey)

                let me: User = try await authedAPI.currentUser.resolved()
                #expect(me == User(id: 2, name: "grace"))
                #expect(backend.count("authenticate") == 1)

                // Adapted: without the header the server refuses the connection.
                await #expect {
                    _ = try await RpcSession<API>.connect(to: url)
                } throws: { error in
                    guard case .connectionLost(let underlying as TransportError) = error as? RpcError else { return false }
                    return underlying.httpStatus == 401
                }
            }
            await peers.expectSettled(session)
            await session.close()
        }
    }

    @Test("only the administrator's capability may delete a user; the regular API is refused")
    func capabilitySecurity() async throws {
        try await withSeedServer { server, backend, peers in
            let session = try await RpcSession<API>.connect(to: server.webSocketURL)
            let adminToken = "admin-token"  // Adapted: the seed's `adminToken` and `userId`
            let userId = 99                 // are not declared there.

            // Adapted: the seed's lines in a scope of their own, so that the refs they hold are
            // released before the tables are checked.
            do {
                // The server returns a capability that grants specific access
                // Adapted: the result's type is written (a `Ref` to the returned capability).
                let adminAPI: Ref<Any> = try await session.api.authenticate(adminToken)

                // This capability can perform admin operations
                // Adapted: the bare `try await` statement is spelled `let _: RpcPayload = try await`.
                let _: RpcPayload = try await adminAPI.users.delete(id: userId)

                // Regular API cannot
                // session.api.users.delete(id: userId)  // Would fail - no permission
                // Adapted: the test makes that call and checks that it fails.
                let denied: Result<RpcPayload, RpcError> = await session.api.users.delete(id: userId).resolvedResult()
                guard case .failure(.remote(type: "PermissionDenied", _)) = denied else {
                    Issue.record("expected PermissionDenied, got \(denied)")
                    return
                }
                #expect(backend.state.withLock { $0.deletedUsers } == [99])
            }
            await peers.expectSettled(session)
            await session.close()
        }
    }
}
