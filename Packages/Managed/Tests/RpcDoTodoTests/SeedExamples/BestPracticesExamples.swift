#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import RpcDo
import RpcDoTodo
import Testing

/// The seed's "Best Practices" examples.
@Suite("Seed examples: best practices")
struct BestPracticesExamples {
    @Test("scoped connections, checking the connection, and disconnecting")
    func connectionLifecycle() async throws {
        try await withDemoServer { url, _ in
            // DO: Use scoped connections
            try await RpcClient.withConnection(to: url) { client in
                // Operations here
                #expect(await client.isConnected)
            }

            // DO: Check connection before operations
            let client = try RpcClient(url: url)
            try await client.connect()
            if await client.isConnected {
                // Adapted: the result type is written.
                let data: DataSummary = try await client.api.getData()
                #expect(data.users == 3)
            }
            await client.disconnect()
        }
    }

    @Test("handling specific error types")
    func errorHandling() async throws {
        try await withDemoServer { url, _ in
            let client = try RpcClient(url: url)
            try await client.connect()
            let id = "missing"
            var outcome = ""

            // DO: Handle specific error types
            do {
                let user: User = try await client.api.users.get(id: id)
                outcome = user.name
            } catch let error as RpcError {
                switch error {
                case .notFound:
                    outcome = "showUserNotFoundMessage"
                case .authenticationFailed:
                    outcome = "redirectToLogin"
                default:
                    outcome = "showGenericError"
                }
            }
            #expect(outcome == "showUserNotFoundMessage")

            // DON'T: Ignore errors
            // Adapted: the type is written. Untyped, `try?` picks the overload meant for a call
            // used as an argument (its result is already optional, which `try?` prefers), so
            // nothing would be sent; Swift warns that no call inside the `try` can throw.
            let user: User? = try? await client.api.users.get(id: id)
            // User might be nil for many reasons!
            #expect(user == nil)  // Added: here, because the user does not exist.
            await client.disconnect()
        }
    }

    @Test("a long pipeline is one round trip; the step-by-step version takes one per step")
    func pipelineBuilding() async throws {
        try await withDemoServer { url, server in
            let client = try RpcClient(url: url)
            try await client.connect()
            let token = "secret"

            // DO: Build long pipelines for fewer round-trips
            server.resetTraffic()
            // Adapted: the result type is written.
            let data: [String: String] = try await client.api
                .authenticate(token)
                .user
                .profile
                .settings
                .preferences
            #expect(data["theme"] == "system")
            #expect(server.traffic.pulls == 1)

            // DON'T: Make separate calls for each step
            // Adapted: only values can be awaited one by one, so the steps read values.
            server.resetTraffic()
            let userId: String = try await client.api.authenticate(token).userId
            let user: User = try await client.api.users.get(id: userId)
            let profile: Profile = try await client.api.profiles.forUser(userId: user.id)
            #expect(profile.displayName == "Alice Martin")
            #expect(server.traffic.pulls == 3)  // 3 round-trips instead of 1!
            await client.disconnect()
        }
    }

    // Seed: Troubleshooting, "Pipeline Issues": the wrong line, in synchronous code (where an
    // untyped call is a ref; in async code it does not compile without `await`).
    static func wrongLine(_ client: RpcClient) -> RpcRef<Any> {
        // Wrong - returns RpcRef<User>
        let user = client.api.users.get(id: "123")
        return user  // Added.
    }

    @Test("troubleshooting: a ref is not the value until it is awaited")
    func pipelineIssues() async throws {
        try await withDemoServer { url, server in
            let client = try RpcClient(url: url)
            try await client.connect()
            server.resetTraffic()
            let ref = Self.wrongLine(client)
            #expect(ref.expressionString == ".users.get(id: \"123\")")
            #expect(server.traffic.pushes == 0)

            // Correct - returns User
            let user: User = try await client.api.users.get(id: "123")
            #expect(user.name == "Alice Martin")
            await client.disconnect()
        }
    }
}
