#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import RpcDo
import RpcDoTodo
import RpcTesting
import Testing

/// The seed's "Configuration" and "Troubleshooting" examples.
@Suite("Seed examples: configuration")
struct ConfigurationExamples {
    @Test("a full configuration connects; defaults match the seed's table")
    func basicConfiguration() async throws {
        try await withDemoServer { url, _ in
            let token = "secret"
            // Adapted: the URL is the demo server's and is unwrapped with #require, not `!`.
            let config = RpcClientConfiguration(
                url: try #require(URL(string: url)),
                timeout: 30.0,
                maxRetries: 3,
                retryBaseDelay: 0.1,
                maxRetryDelay: 10.0,
                headers: [
                    "Authorization": "Bearer \(token)",
                    "X-Client-Version": "1.0.0",
                ]
            )

            let client = RpcClient(configuration: config)
            try await client.connect()
            #expect(await client.isConnected)
            await client.disconnect()

            let defaults = RpcClientConfiguration(url: try #require(URL(string: url)))
            #expect(defaults.timeout == 30.0)
            #expect(defaults.maxRetries == 3)
            #expect(defaults.retryBaseDelay == 0.1)
            #expect(defaults.maxRetryDelay == 10.0)
            #expect(defaults.headers.isEmpty)
        }
    }

    @Test("a per-request timeout overrides the configured one")
    func perRequestTimeout() async throws {
        try await withDemoServer { url, _ in
            let client = try RpcClient(url: url)
            try await client.connect()

            // Adapted: the result type is written; the operation takes the milliseconds it runs.
            let result: OperationResult = try await client.api
                .longRunningOperation(ms: 50)
                .timeout(.seconds(120))
            #expect(result.done)

            // And the other way round: a per-request timeout shorter than the operation fails.
            await #expect(throws: RpcError.timeout) {
                let _: OperationResult = try await client.api.longRunningOperation(ms: 2_000).timeout(.milliseconds(100))
            }
            await client.disconnect()
        }
    }

    @Test("authentication headers are set at creation and updated at runtime; the next call carries the new one")
    func authenticationHeaders() async throws {
        try await withDemoServer { url, server in
            let apiURL = try #require(URL(string: url))
            let accessToken = "secret"
            let newToken = "demo-token"

            // Set initial auth
            let client = RpcClient(configuration: .init(
                url: apiURL,
                headers: ["Authorization": "Bearer \(accessToken)"]
            ))
            try await client.connect()

            // Update on token refresh
            await client.updateHeader("Authorization", value: "Bearer \(newToken)")
            let name: String = try await client.api.users.get(id: "123").name
            #expect(name == "Alice Martin")
            // Added: the call went out on a connection opened with the new token.
            #expect(server.authorizations.last == "Bearer \(newToken)")
            // The first connection's session ends once the server has read its close, which may
            // come after the call on the new one.
            #expect(await waitUntil { server.sessions.count == 1 })
            await client.disconnect()
        }
    }

    @Test("troubleshooting: a longer timeout in the configuration")
    func longerTimeout() async throws {
        try await withDemoServer { url, _ in
            let apiURL = try #require(URL(string: url))
            let config = RpcClientConfiguration(
                url: apiURL,
                timeout: 120.0  // 2 minutes
            )
            #expect(config.timeout == 120.0)

            // Not https:// - that's for HTTP, not WebSocket
            #expect(throws: RpcError.self) { _ = try RpcClient(url: "https://api.example.com") }
        }
    }
}
