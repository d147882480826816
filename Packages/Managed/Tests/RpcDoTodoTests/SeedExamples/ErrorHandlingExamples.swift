#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import RpcDo
import RpcDoTodo
import Testing

/// The seed's "Error Handling" examples.
@Suite("Seed examples: error handling")
struct ErrorHandlingExamples {
    /// The seed's exhaustive switch: it compiles only if `RpcError` has exactly the seed's cases.
    static func describe(_ error: RpcError) -> String {
        switch error {
        case .remote(let type, let message):
            return "Server error [\(type)]: \(message)"

        case .connectionLost(let reason):
            return "Disconnected: \(reason ?? "unknown")"

        case .timeout:
            return "Request timed out"

        case .cancelled:
            return "Request was cancelled"

        case .notFound(let resource):
            return "Not found: \(resource)"

        case .authenticationFailed(let reason):
            return "Auth failed: \(reason)"

        case .rateLimitExceeded(let retryAfter):
            if let delay = retryAfter {
                return "Rate limited. Retry after \(delay)s"
            }
            return "Rate limited"

        case .invalidResponse(let details):
            return "Bad response: \(details)"

        case .invalidArgument(let details):
            return "Invalid argument: \(details)"

        case .notImplemented(let method):
            return "Not implemented: \(method)"
        }
    }

    @Test("basic error handling: a missing user is RpcError.notFound")
    func basicErrorHandling() async throws {
        try await withDemoServer { url, _ in
            let client = try RpcClient(url: url)
            try await client.connect()
            let invalidId = "no-such-user"
            var printed = ""

            do {
                // Adapted: the result type is written.
                let user: User = try await client.api.users.get(id: invalidId)
                Issue.record("expected notFound, got \(user)")
            } catch let error as RpcError {
                printed = Self.describe(error)
                print(printed)
            }
            #expect(printed == "Not found: no user with id no-such-user")
            await client.disconnect()
        }
    }

    @Test("broken references: every ref pipelined on a failed call throws the original error")
    func brokenReferences() async throws {
        try await withDemoServer { url, _ in
            let client = try RpcClient(url: url)
            try await client.connect()
            let badToken = "expired"

            // Adapted: in async code a ref held without awaiting it is written with its type.
            let authed: RpcRef<Any> = client.api.authenticate(token: badToken)  // Will fail
            let user: RpcRef<Any> = authed.currentUser                           // Broken ref
            let profile: RpcRef<Any> = user.profile                              // Also broken

            // Awaiting any broken ref throws the original error
            do {
                let name: String = try await profile.displayName
                Issue.record("expected a failure, got \(name)")
            } catch let error as RpcError {
                // error is .authenticationFailed("Invalid token")
                #expect(error == .authenticationFailed("Invalid token"))
            }
            await client.disconnect()
        }
    }

    @Test("automatic retry: a rate-limited call is retried after retryAfter")
    func automaticRetry() async throws {
        let store = TodoStore(rateLimit: RateLimit(calls: 1, window: .seconds(1)))
        try await withDemoServer(store: store) { url, server in
            let apiURL = try #require(URL(string: url))
            // Customize retry behavior
            let config = RpcClientConfiguration(
                url: apiURL,
                maxRetries: 5,
                retryBaseDelay: 0.2,    // Start with 200ms
                maxRetryDelay: 30.0     // Cap at 30 seconds
            )
            let client = RpcClient(configuration: config)
            try await client.connect()
            server.resetTraffic()
            let first: [Todo] = try await client.api.todos.search(query: "milk")
            let second: [Todo] = try await client.api.todos.search(query: "milk")
            #expect(first.count == 1 && second.count == 1)
            #expect(server.traffic.rejects >= 1, "the second search was rate limited, then retried")
            await client.disconnect()

            // Without retries the typed error reaches the caller, with retryAfter.
            var noRetry = config
            noRetry.maxRetries = 0
            let strict = RpcClient(configuration: noRetry)
            try await strict.connect()
            // The first call may land in the window the retried call opened; the second one
            // lands in a full window either way.
            let _: [Todo]? = try? await strict.api.todos.search(query: "milk")
            do {
                let _: [Todo] = try await strict.api.todos.search(query: "milk")
                Issue.record("expected rateLimitExceeded")
            } catch RpcError.rateLimitExceeded(let retryAfter) {
                #expect((retryAfter ?? 0) > 0)
            }
            await strict.disconnect()
        }
    }

    // Seed: "Custom Retry Logic".
    // Adapted: `throw lastError!` became a `guard let` (no force unwrap); `pow` is spelled with
    // `Double(1 << attempt)`; `Error` is written `any Error`.
    func fetchWithRetry<T: Decodable>(
        maxAttempts: Int = 3,
        operation: () async throws -> T
    ) async throws -> T {
        var lastError: (any Error)?

        for attempt in 0..<maxAttempts {
            do {
                return try await operation()
            } catch let error as RpcError {
                lastError = error

                switch error {
                case .connectionLost, .timeout:
                    // Retry with backoff
                    let delay = Double(1 << attempt) * 0.5
                    try await Task.sleep(for: .seconds(delay))
                    continue

                case .rateLimitExceeded(let retryAfter):
                    if let delay = retryAfter {
                        try await Task.sleep(for: .seconds(delay))
                        continue
                    }
                    throw error

                default:
                    // Don't retry other errors
                    throw error
                }
            }
        }

        guard let lastError else { throw RpcError.timeout }
        throw lastError
    }

    @Test("custom retry logic waits for retryAfter and tries again")
    func customRetryLogic() async throws {
        let store = TodoStore(rateLimit: RateLimit(calls: 1, window: .milliseconds(300)))
        try await withDemoServer(store: store) { url, _ in
            let config = RpcClientConfiguration(url: try #require(URL(string: url)), maxRetries: 0)
            let client = RpcClient(configuration: config)
            try await client.connect()
            let userId = "123"

            // Usage
            // Adapted: `as User` names what the closure returns (Swift cannot infer it).
            let user = try await fetchWithRetry {
                try await client.api.users.get(id: userId) as User
            }
            #expect(user.id == "123")
            let _: [Todo] = try await client.api.todos.search(query: "ship")
            let found = try await fetchWithRetry {
                try await client.api.todos.search(query: "ship") as [Todo]
            }
            #expect(found.count == 1)
            await client.disconnect()
        }
    }
}
