import Foundation
import Testing
import CapnWebSocketTestSupport
import RpcTransportTesting
import CapnWeb

// Seed 001's "Workflow Orchestration": sequential, pipelined, parallel and task-group
// workflows. The seed writes them as free functions using a `session` in scope.

// Adapted: the seed's functions use a `session` from their surroundings; here it is a
// stored property of the type that holds them.
struct Workflows: Sendable {
    let session: RpcSession<Any>

    func onboardUser(email: String, name: String) async throws -> User {
        // Each step uses the result of the previous
        // Adapted: each result's type is written (an untyped `let x = try await` is a ref),
        // and `.standard` is `ProfileDefaults.standard` (an argument of any type has no
        // implicit members).
        let invitation: Invitation = try await session.api.invitations.create(email: email)
        let user: User = try await session.api.users.register(
            invitationCode: invitation.code,
            name: name
        )
        let profile: Profile = try await session.api.profiles.setup(
            userId: user.id,
            defaults: ProfileDefaults.standard
        )
        _ = profile  // Adapted: the seed never reads `profile`; Swift warns about that.

        return user
    }

    func onboardUserOptimized(email: String, name: String) async throws -> User {
        // Single round-trip: server chains operations
        // Adapted: `.standard` is `ProfileDefaults.standard`.
        let user: User = try await session.api
            .invitations.create(email: email)
            .accept(name: name)
            .setupProfile(defaults: ProfileDefaults.standard)
            .user

        return user
    }

    func loadDashboard() async throws -> Dashboard {
        // Adapted: `.active` is `TodoFilter.active`.
        async let user: User = session.api.currentUser
        async let todos: [Todo] = session.api.todos.list(filter: TodoFilter.active)
        async let notifications: [Notification] = session.api.notifications.unread()
        async let stats: Stats = session.api.analytics.summary()

        return try await Dashboard(
            user: user,
            todos: todos,
            notifications: notifications,
            stats: stats
        )
    }

    func fetchAllUserProfiles(ids: [String]) async throws -> [String: Profile] {
        try await withThrowingTaskGroup(of: (String, Profile).self) { group in
            for id in ids {
                group.addTask {
                    let profile: Profile = try await session.api.users[id].profile
                    return (id, profile)
                }
            }

            var profiles: [String: Profile] = [:]
            for try await (id, profile) in group {
                profiles[id] = profile
            }
            return profiles
        }
    }
}

@Suite("Seed 001: workflow orchestration")
struct WorkflowExamples {
    @Test("sequential operations: invitation, registration and profile set-up, each step using the previous")
    func sequential() async throws {
        try await withSeedServer { server, backend, peers in
            let session = try await RpcSession.connect(to: server.webSocketURL.absoluteString)
            let user = try await Workflows(session: session).onboardUser(email: "ada@example.com", name: "Ada")
            #expect(user == User(id: 42, name: "Ada"))
            #expect(backend.calls == ["invitations.create", "users.register", "profiles.setup"])
            await peers.expectSettled(session)
            await session.close()
        }
    }

    @Test("pipelined operations: create, accept and setupProfile chain on the server and give the user")
    func pipelined() async throws {
        try await withSeedServer { server, backend, peers in
            let session = try await RpcSession.connect(to: server.webSocketURL.absoluteString)
            let user = try await Workflows(session: session).onboardUserOptimized(email: "ada@example.com", name: "Ada")
            #expect(user == User(id: 42, name: "Ada"))
            #expect(backend.calls == ["invitations.create", "invitation.accept", "accepted.setupProfile"])
            await peers.expectSettled(session)
            await session.close()
        }
    }

    @Test("parallel resolution: four async lets build the dashboard")
    func parallel() async throws {
        try await withSeedServer { server, backend, peers in
            let session = try await RpcSession.connect(to: server.webSocketURL.absoluteString)
            let dashboard = try await Workflows(session: session).loadDashboard()
            #expect(dashboard.user == User(id: 1, name: "ada"))
            #expect(dashboard.todos.map(\.id) == ["123"])
            #expect(dashboard.notifications == NotificationService.unread)
            #expect(dashboard.stats == Stats(todoCount: 2, completedCount: 1))
            #expect(Set(backend.calls) == ["todos.list", "notifications.unread", "analytics.summary"])
            await peers.expectSettled(session)
            await session.close()
        }
    }

    @Test("task groups: one profile per id, read through users[id].profile")
    func taskGroup() async throws {
        try await withSeedServer { server, _, peers in
            let session = try await RpcSession.connect(to: server.webSocketURL.absoluteString)
            let profiles = try await Workflows(session: session).fetchAllUserProfiles(ids: ["1", "2", "3"])
            #expect(profiles == [
                "1": Profile(userId: 1, displayName: "User 1"),
                "2": Profile(userId: 2, displayName: "User 2"),
                "3": Profile(userId: 3, displayName: "User 3"),
            ])
            await peers.expectSettled(session)
            await session.close()
        }
    }
}
