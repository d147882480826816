#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import RpcDo
import RpcDoTodo
import Testing

/// The seed's "Workflow Orchestration" examples, each a function of a connected client.
struct OnboardingWorkflows {
    let client: RpcClient

    func onboardUser(email: String) async throws -> OnboardingResult {
        // Step 1: Create invitation
        let invitation: Invitation = try await client.api.invitations.create(
            email: email
        )

        // Step 2: Wait for user to accept (polling or webhook)
        let user: User = try await client.api.users.waitForRegistration(
            invitationCode: invitation.code,
            timeout: 3600
        )

        // Step 3: Set up default profile
        // Adapted: `.standard` is spelled with its type (the argument is `any Sendable`).
        let profile: Profile = try await client.api.profiles.create(
            userId: user.id,
            defaults: ProfileDefaults.standard
        )

        // Step 4: Send welcome email
        try await client.api.emails.sendWelcome(userId: user.id)

        return OnboardingResult(user: user, profile: profile)
    }

    func onboardUserOptimized(email: String) async throws -> OnboardingResult {
        // Single pipeline - server chains all operations
        let result: OnboardingResult = try await client.api
            .invitations.create(email: email)
            .waitForAcceptance()
            .createDefaultProfile()
            .sendWelcomeEmail()
            .result

        return result
    }

    func loadDashboard() async throws -> Dashboard {
        // All four requests execute in parallel
        async let user: User = client.api.users.current
        async let stats: DashboardStats = client.api.analytics.dashboard
        async let notifications: [Notification] = client.api.notifications.recent(limit: 5)
        // Adapted: `.active` is spelled with its type (the argument is `any Sendable`).
        async let todos: [Todo] = client.api.todos.list(filter: TodoFilter.Status.active)

        return try await Dashboard(
            user: user,
            stats: stats,
            notifications: notifications,
            todos: todos
        )
    }

    func fetchAllUserProfiles(ids: [String]) async throws -> [String: Profile] {
        try await withThrowingTaskGroup(of: (String, Profile).self) { group in
            for id in ids {
                group.addTask {
                    let profile: Profile = try await client.api.users[id].profile
                    return (id, profile)
                }
            }

            var results: [String: Profile] = [:]
            for try await (id, profile) in group {
                results[id] = profile
            }
            return results
        }
    }
}

@Suite("Seed examples: workflow orchestration")
struct WorkflowExamples {
    @Test("sequential onboarding: invitation, registration, profile, welcome email")
    func sequential() async throws {
        try await withDemoServer { url, _ in
            let client = try RpcClient(url: url)
            try await client.connect()
            let result = try await OnboardingWorkflows(client: client).onboardUser(email: "dana@example.com")
            #expect(result.user.email == "dana@example.com" && result.profile.userId == result.user.id)
            #expect(result.profile.bio == "New here.")
            await client.disconnect()
        }
    }

    @Test("pipelined onboarding: the whole workflow in one round trip")
    func pipelined() async throws {
        try await withDemoServer { url, server in
            let client = try RpcClient(url: url)
            try await client.connect()
            server.resetTraffic()
            let result = try await OnboardingWorkflows(client: client).onboardUserOptimized(email: "erin@example.com")
            #expect(result.user.name == "erin" && result.profile.userId == result.user.id)
            #expect(server.traffic.pulls == 1)
            await client.disconnect()
        }
    }

    @Test("parallel operations build a dashboard")
    func parallel() async throws {
        try await withDemoServer { url, _ in
            let client = try RpcClient(url: url)
            try await client.connect()
            let dashboard = try await OnboardingWorkflows(client: client).loadDashboard()
            #expect(dashboard.user.id == "123")
            #expect(dashboard.stats.todos == 3 && dashboard.stats.active == 2)
            #expect(dashboard.notifications.count == 2)
            #expect(dashboard.todos.map(\.title) == ["Buy milk", "Ship it"])
            await client.disconnect()
        }
    }

    @Test("a task group fetches every profile by subscript")
    func taskGroups() async throws {
        try await withDemoServer { url, _ in
            let client = try RpcClient(url: url)
            try await client.connect()
            let profiles = try await OnboardingWorkflows(client: client).fetchAllUserProfiles(ids: ["123", "abc-123", "456"])
            #expect(profiles.mapValues(\.displayName) == ["123": "Alice Martin", "abc-123": "Bob Chen", "456": "Carol Diaz"])
            await client.disconnect()
        }
    }

    @Test("a batch sends several calls in one HTTP request")
    func batchOperations() async throws {
        try await withDemoServer { url, server in
            let userId = "123"
            server.resetTraffic()
            // All operations in this closure execute as ONE HTTP POST
            // Adapted: the URL is the demo server's batch endpoint, and the batch waits up to
            // 250 ms for the next call (RpcDo's default is 20 ms) so that a loaded machine
            // starting the three `async let` tasks slowly still sends them together.
            let results = try await RpcClient.batch(url: server.batchURL.absoluteString, batchDelay: .milliseconds(250)) { api in
                async let user: User = api.users.get(id: userId)
                async let posts: [Post] = api.posts.forUser(id: userId)
                async let following: [User] = api.social.following(userId: userId)

                return try await (user, posts, following)
            }

            let (user, posts, following) = results
            #expect(user.name == "Alice Martin")
            #expect(posts.count == 3)
            #expect(following.map(\.id) == ["abc-123", "456"])
            #expect(server.traffic.connections == 1, "one HTTP request")
        }
    }
}
