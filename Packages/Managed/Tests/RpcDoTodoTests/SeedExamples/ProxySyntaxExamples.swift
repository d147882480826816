#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import RpcDo
import RpcDoTodo
import Testing

/// The seed's "The Magic Proxy Syntax", "Promise Pipelining" and "The RpcRef<T> Type".
@Suite("Seed examples: proxy syntax and pipelining")
struct ProxySyntaxExamples {
    @Test("property access builds refs without traffic; resolving sends one round trip")
    func propertyAccess() async throws {
        try await withDemoServer { url, server in
            let client = try RpcClient(url: url)
            try await client.connect()
            server.resetTraffic()

            // Access nested properties - no network calls yet
            let profileRef: RpcRef<Any> = client.api.users.current.profile   // RpcRef<Profile>
            let nameRef: RpcRef<String> = profileRef.displayName             // RpcRef<String>
            #expect(server.traffic.pushes == 0)

            // Await to resolve - NOW the network call happens
            // Adapted: an `RpcRef` is not awaitable by itself in Swift; `resolved()` awaits it.
            let name: String = try await nameRef.resolved()
            #expect(name == "Alice Martin")
            #expect(server.traffic.pulls == 1)
            await client.disconnect()
        }
    }

    @Test("method calls with labels, and a chain through authenticate to a user's posts")
    func methodCalls() async throws {
        try await withDemoServer { url, _ in
            let client = try RpcClient(url: url)
            try await client.connect()
            let bearerToken = "secret"

            // Call methods with arguments
            let user = try await client.api.users.create(
                name: "Alice",
                email: "alice@example.com"
            )
            #expect(try user.decoded(as: User.self).name == "Alice")

            // Chain method calls with property access
            let posts = try await client.api
                .users.authenticate(token: bearerToken)
                .currentUser
                .posts
                .list(limit: 10)
            #expect(try posts.decoded(as: [Post].self).count == 3)
            await client.disconnect()
        }
    }

    @Test("subscripts reach array elements and keyed members")
    func subscriptAccess() async throws {
        try await withDemoServer { url, _ in
            let client = try RpcClient(url: url)
            try await client.connect()

            // Access array elements or dictionary keys
            let firstUser = try await client.api.users.all[0]
            let userById = try await client.api.users["abc-123"]
            #expect(try firstUser.decoded(as: User.self).id == "123")
            #expect(try userById.decoded(as: User.self).name == "Bob Chen")
            await client.disconnect()
        }
    }

    @Test("a five-step pipeline resolves in one round trip")
    func buildingPipelines() async throws {
        try await withDemoServer { url, server in
            let client = try RpcClient(url: url)
            try await client.connect()
            server.resetTraffic()

            // This builds an expression tree, no network yet
            let ref: RpcRef<String> = client.api
                .authenticate(token: "secret")
                .currentUser
                .profile
                .avatar
                .url

            // This sends the entire pipeline in ONE request
            // Adapted: `resolved()` awaits the ref.
            let avatarUrl: String = try await ref.resolved()
            #expect(avatarUrl == "https://avatars.example.com/123.png")
            #expect(server.traffic.pulls == 1)

            // RpcDo: Single Round Trip
            let token = "demo-token"
            let url: String = try await client.api
                .authenticate(token: token)
                .currentUser
                .profile
                .avatar
                .url
            #expect(url.hasSuffix("/abc-123.png"))
            await client.disconnect()
        }
    }

    @Test("an unresolved ref passed as an argument is resolved on the server")
    func serverSideComposition() async throws {
        try await withDemoServer { url, server in
            let client = try RpcClient(url: url)
            try await client.connect()
            let token = "demo-token"
            server.resetTraffic()

            // The userId is extracted on the SERVER, not the client
            // Adapted: in async code a ref held without awaiting it is written with its type.
            let authed: RpcRef<Any> = client.api.authenticate(token: token)

            // Adapted: the result type is written.
            let profile: Profile = try await client.api.profiles.forUser(
                userId: authed.currentUser.id  // This is a Ref, not a String!
            )

            // Single round-trip: server resolves authed.currentUser.id internally
            #expect(profile.userId == "abc-123")
            #expect(server.traffic.pulls == 1)
            await client.disconnect()
        }
    }

    @Test("async let with no result types runs independent pipelines concurrently, each sent")
    func parallelPipelines() async throws {
        try await withDemoServer { url, server in
            let client = try RpcClient(url: url)
            try await client.connect()
            server.resetTraffic()

            async let user = client.api.users.current
            async let notifications = client.api.notifications.unread(limit: 10)
            async let stats = client.api.analytics.dashboard

            // All three pipelines execute concurrently
            let (u, n, s) = try await (user, notifications, stats)
            #expect(server.traffic.pulls == 3)
            #expect(try u.decoded(as: User.self).id == "123")
            #expect(try n.decoded(as: [Notification].self).count == 2)
            #expect(try s.decoded(as: DashboardStats.self).todos == 3)
            await client.disconnect()
        }
    }

    @Test("a bare try await client.api.users.delete(id:) is sent, and its error surfaces")
    func bareDelete() async throws {
        try await withDemoServer { url, server in
            let client = try RpcClient(url: url)
            try await client.connect()
            server.resetTraffic()

            try await client.api.users.delete(id: "123")
            #expect(server.traffic.pulls == 1)
            let missing = await #expect(throws: RpcError.self) {
                let user = try await client.api.users.get(id: "123")
                Issue.record("user 123 should be gone, got \(user)")
            }
            #expect(missing.map { if case .notFound = $0 { true } else { false } } == true)

            // Deleting it again fails, and the bare statement throws.
            let again = await #expect(throws: RpcError.self) {
                try await client.api.users.delete(id: "123")
            }
            #expect(again.map { if case .notFound = $0 { true } else { false } } == true)
            #expect(server.traffic.pulls == 3)
            await client.disconnect()
        }
    }

    @Test("awaiting a typed ref and its member; expressionString shows the chain")
    func rpcRefType() async throws {
        try await withDemoServer { url, _ in
            let client = try RpcClient(url: url)
            try await client.connect()

            let ref: RpcRef<User> = client.api.users.get(id: "123")

            // Explicitly await to get the value
            // Adapted: `resolved()` awaits a ref held in a variable.
            let user: User = try await ref.resolved()
            #expect(user.email == "alice@example.com")

            // Or use in an async context
            print(try await ref.name)  // Implicitly creates Ref<String> and awaits
            let name = try await ref.name
            #expect(name == .string("Alice Martin"))

            // Expression Debugging
            let debugRef: RpcRef<Any> = client.api.users.get(id: "123").profile.displayName
            print(debugRef.expressionString)
            // Output: .users.get(id: "123").profile.displayName
            #expect(debugRef.expressionString == #".users.get(id: "123").profile.displayName"#)
            await client.disconnect()
        }
    }

    @Test("map runs per element on the server: one round trip instead of N+1")
    func mapOperations() async throws {
        try await withDemoServer { url, server in
            let client = try RpcClient(url: url)
            try await client.connect()

            // BAD: N+1 round trips
            server.resetTraffic()
            let users: [User] = try await client.api.users.list()
            var profiles: [Profile] = []
            for user in users {
                let profile: Profile = try await client.api.profiles.forUser(userId: user.id)
                profiles.append(profile)
            }
            #expect(server.traffic.pulls == users.count + 1)

            // GOOD: Single round trip with .map
            server.resetTraffic()
            let mapped: [Profile] = try await client.api.users.list()
                .map { user in
                    client.api.profiles.forUser(userId: user.id)
                }
            #expect(mapped.map(\.displayName) == profiles.map(\.displayName))
            #expect(server.traffic.pulls == 1)
            await client.disconnect()
        }
    }
}
