import Foundation
import RpcDoTesting
import Synchronization
import Testing
@testable import Tinyvex
import TinyvexServer

/// `setAuthTokenProvider`: tokens fetched for every connection, and fetched again with
/// `forceRefresh` when the server says the token has expired.
@Suite("Tinyvex token provider, in memory", .timeLimit(.minutes(1)))
struct TokenProviderTests {
    /// A provider that hands out `stale` until asked to refresh, then `fresh`, and records how
    /// it was called.
    final class Provider: Sendable {
        private let state = Mutex<(calls: [Bool], refreshed: Bool)>(([], false))
        let stale: String
        let fresh: String

        init(stale: String, fresh: String) {
            self.stale = stale
            self.fresh = fresh
        }

        var calls: [Bool] { state.withLock { $0.calls } }

        func token(forceRefresh: Bool) -> String {
            state.withLock { state in
                state.calls.append(forceRefresh)
                if forceRefresh { state.refreshed = true }
                return state.refreshed ? fresh : stale
            }
        }
    }

    struct None: Codable {}

    static func schema() -> TinyvexSchema {
        var schema = TinyvexDemoSchema.schema()
        schema.query("whoami", requiresIdentity: true) { (context, _: None) in context.identity ?? "" }
        return schema
    }

    /// A hook that finds `expired` expired and knows `valid` as alice.
    static func configuration(expired: String, valid: String) -> TinyvexServerConfiguration {
        TinyvexServerConfiguration(authenticate: { token in
            if token == expired { throw TinyvexServerError.tokenExpired() }
            return token == valid ? "alice" : nil
        })
    }

    @Test("an expired token at connect makes the client ask the provider again with forceRefresh and send the new token before it subscribes; a reconnect asks again without it")
    func refreshOnExpiry() async throws {
        try await withInMemoryServer(schema: Self.schema(), configuration: Self.configuration(expired: "old", valid: "new")) { server in
            let provider = Provider(stale: "old", fresh: "new")
            let client = try makeClient(server)
            client.setAuthTokenProvider { forceRefresh in provider.token(forceRefresh: forceRefresh) }
            let stream: AsyncThrowingStream<String, any Error> = client.subscribe("whoami", params: None(), as: String.self)
            var iterator = stream.makeAsyncIterator()
            #expect(try await iterator.next() == "alice")
            #expect(provider.calls == [false, true])
            #expect(Array(server.requestMethods.prefix(3)) == ["tinyvex/connect", "tinyvex/auth.setToken", "tinyvex/subscribe"])

            // A new connection fetches a token again; the fresh one is accepted at connect.
            server.cutLinks()
            // A call on the cut link may fail before the loss is seen; the next waits for the
            // new connection.
            var answer: String?
            for _ in 0..<3 where answer == nil {
                answer = try? await client.query("whoami", params: None(), as: String.self)
            }
            #expect(answer == "alice")
            #expect(server.connects == 2)
            #expect(provider.calls == [false, true, false])
            await client.close()
        }
    }

    @Test("a provider set on a ready connection is asked at once and its token written; setAuthToken then replaces it")
    func providerOnReadyLink() async throws {
        try await withInMemoryServer(schema: Self.schema(), configuration: Self.configuration(expired: "old", valid: "new")) { server in
            let client = try makeClient(server)
            _ = try await client.mutation("messages.send", args: Send(channel: "g", author: "a", text: "t"), as: Int64.self)
            let provider = Provider(stale: "new", fresh: "new")
            client.setAuthTokenProvider { forceRefresh in provider.token(forceRefresh: forceRefresh) }
            try await waitUntil("the provider's token written") { server.requestMethods.contains("tinyvex/auth.setToken") }
            #expect(try await client.query("whoami", params: None(), as: String.self) == "alice")
            #expect(provider.calls == [false])
            client.setAuthToken(nil)
            await #expect(throws: TinyvexError.self) { try await client.query("whoami", params: None(), as: String.self) }
            server.cutLinks()
            try await waitUntil("the second connection") { server.connects == 2 }
            _ = try await client.mutation("messages.send", args: Send(channel: "g", author: "a", text: "u"), as: Int64.self)
            #expect(provider.calls == [false])
            await client.close()
        }
    }

    @Test("a provider set on a ready connection whose token the server finds expired is asked again with forceRefresh, and its new token is used")
    func refreshOnReadyLink() async throws {
        try await withInMemoryServer(schema: Self.schema(), configuration: Self.configuration(expired: "old", valid: "new")) { server in
            let client = try makeClient(server)
            _ = try await client.mutation("messages.send", args: Send(channel: "g", author: "a", text: "t"), as: Int64.self)
            let provider = Provider(stale: "old", fresh: "new")
            client.setAuthTokenProvider { forceRefresh in provider.token(forceRefresh: forceRefresh) }
            try await waitUntil("the refreshed token written") {
                server.requestMethods.filter { $0 == "tinyvex/auth.setToken" }.count == 2
            }
            #expect(provider.calls == [false, true])
            #expect(try await client.query("whoami", params: None(), as: String.self) == "alice")
            await client.close()
        }
    }
}
