import Foundation
import Testing
import CapnWebSocketTestSupport
import RpcTransportTesting
import CapnWeb

// Seed 001's "Connection Configuration": the result builder DSL, the closure form and HTTP
// batch mode.

@Suite("Seed 001: connection configuration")
struct ConfigurationExamples {
    @Test("the builder form's settings are all applied: headers reach the server, the pinned bundle certificate is the one trusted")
    func resultBuilder() async throws {
        let certificates = try await SeedCertificates()
        let admitted = AdmittedHeaders()
        try await withSeedServer(tls: certificates.serverTLS, admit: admitted.admit) { server, _, peers in
            // Adapted: `url` is the test server's address (wss, presenting `api-cert`).
            let url = server.webSocketURL
            #expect(url.scheme == "wss")
            // Adapted: the test's certificate directory stands for the app's bundle.
            let main = certificates.bundle

            let session = try await RpcSession<API>.connect(to: url) {
                Timeout(.seconds(30))

                Reconnect {
                    MaxAttempts(10)
                    Backoff(.exponential(base: .seconds(1), max: .seconds(30)))
                }

                Headers {
                    Header("X-Client-Version", "1.0.0")
                    Header("X-Platform", "iOS")
                }

                TLS {
                    // Adapted: `bundle: main` (the test's bundle) instead of `bundle: .main`.
                    PinnedCertificates(bundle: main, named: "api-cert")
                }
            }

            let done: String = try await session.api.doWork()
            #expect(done == "done")
            let headers = try #require(admitted.all.last)
            #expect(headers["x-client-version"] == "1.0.0")
            #expect(headers["x-platform"] == "iOS")

            // The same block, evaluated as connect evaluates it: every setting is there.
            let configuration = builtConfiguration {
                Timeout(.seconds(30))
                Reconnect {
                    MaxAttempts(10)
                    Backoff(.exponential(base: .seconds(1), max: .seconds(30)))
                }
                Headers {
                    Header("X-Client-Version", "1.0.0")
                    Header("X-Platform", "iOS")
                }
                TLS {
                    PinnedCertificates(bundle: main, named: "api-cert")
                }
            }
            #expect(configuration.timeout == .seconds(30))
            #expect(configuration.reconnect == ReconnectPolicy(maxAttempts: 10, backoff: .exponential(base: .seconds(1), max: .seconds(30))))
            #expect(configuration.headers == ["X-Client-Version": "1.0.0", "X-Platform": "iOS"])
            let pinned = certificates.directory.appendingPathComponent("api-cert.pem").path
            #expect(configuration.tls?.trustRoots == .certificates([.file(path: pinned)]))

            await peers.expectSettled(session)
            await session.close()
        }
    }

    @Test("the closure form's timeout, reconnect policy and headers are applied")
    func closureBased() async throws {
        let admitted = AdmittedHeaders()
        try await withSeedServer(admit: admitted.admit) { server, _, peers in
            // Adapted: `url` is the test server's address.
            let url = server.webSocketURL
            let applied = Recorder<Configuration>()

            let session = try await RpcSession<API>.connect(to: url) { config in
                config.timeout = .seconds(30)
                config.reconnect = .exponentialBackoff(
                    maxAttempts: 10,
                    baseDelay: .seconds(1),
                    maxDelay: .seconds(30)
                )
                config.headers = [
                    "X-Client-Version": "1.0.0",
                    "X-Platform": "iOS"
                ]
                applied.append(config)  // Adapted: the test keeps what the closure produced.
            }

            let done: String = try await session.api.doWork()
            #expect(done == "done")
            let headers = try #require(admitted.all.last)
            #expect(headers["x-client-version"] == "1.0.0")
            #expect(headers["x-platform"] == "iOS")
            let configuration = try #require(applied.all.first)
            #expect(configuration.timeout == .seconds(30))
            #expect(configuration.reconnect.maxAttempts == 10)
            #expect(configuration.reconnect.backoff == .exponential(base: .seconds(1), max: .seconds(30)))

            await peers.expectSettled(session)
            await session.close()
        }
    }

    @Test("every ReconnectPolicy form the seed writes is accepted and means what it says")
    func reconnectPolicyForms() async throws {
        try await withSeedServer { server, _, peers in
            // Adapted: `URL(string: "wss://api.example.com")!` is the test server's address.
            let session = try await RpcSession<API>.connect(to: server.webSocketURL) { config in
                // From the seed's iOS app setup.
                config.reconnect = .exponentialBackoff(
                    maxAttempts: .max,
                    baseDelay: .seconds(1),
                    maxDelay: .seconds(30)
                )
            }
            let done: String = try await session.api.doWork()
            #expect(done == "done")
            await peers.expectSettled(session)
            await session.close()
        }
        // The type reference's three forms.
        var config = Configuration()
        #expect(config.reconnect.maxAttempts == 0)  // "Reconnection policy (default: none)"
        config.reconnect = .none
        #expect(config.reconnect == .never)
        config.reconnect = .immediate(maxAttempts: 3)
        #expect(config.reconnect.maxAttempts == 3 && config.reconnect.backoff.maxDelay == .zero)
        config.reconnect = .exponentialBackoff(maxAttempts: 10, baseDelay: .seconds(1), maxDelay: .seconds(30))
        #expect(config.reconnect.maxAttempts == 10)
        #expect(config.reconnect.backoff == .exponential(base: .seconds(1), max: .seconds(30)))
    }

    @Test("HTTP batch mode: three async lets in the batch closure come back as one tuple")
    func httpBatch() async throws {
        try await withSeedServer { server, backend, peers in
            // Adapted: `url` is the test server's batch address.
            let url = server.batchURL

            let results = try await RpcSession<API>.batch(url: url) { api in
                async let user: User = api.users.get(id: 123)
                async let posts: [Post] = api.posts.forUser(id: 123)
                async let friends: [User] = api.friends.of(userId: 123)

                return try await (user, posts, friends)
            }

            let (user, posts, friends) = results

            #expect(user == User(id: 123, name: "user-123"))
            #expect(posts == [Post(id: 1230, title: "first post of 123")])
            #expect(friends.map(\.id) == [124, 125])
            #expect(Set(backend.calls) == ["users.get", "posts.forUser", "friends.of"])
            // A batch leaves no session behind on the server.
            #expect(await waitUntil { server.sessionCount == 0 })
        }
    }
}
