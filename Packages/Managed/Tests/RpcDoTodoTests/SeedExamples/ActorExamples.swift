#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import RpcDo
import RpcDoTodo
import Testing

// Seed: "Custom Service Actors".
actor UserService {
    private let client: RpcClient
    private var cache: [String: User] = [:]

    init(client: RpcClient) {
        self.client = client
    }

    func getUser(id: String) async throws -> User {
        if let cached = cache[id] {
            return cached
        }

        let user: User = try await client.api.users.get(id: id)
        cache[id] = user
        return user
    }

    func invalidateCache() {
        cache.removeAll()
    }
}

/// The seed's "Actors for Thread Safety" examples.
@Suite("Seed examples: actors")
struct ActorExamples {
    @Test("one client serves many concurrent tasks")
    func multipleTasks() async throws {
        try await withDemoServer { url, _ in
            let client = try RpcClient(url: url)
            try await client.connect()
            let userIds = ["123", "abc-123", "456"]

            // Safe to call from multiple concurrent tasks
            // Adapted: the seed's `withTaskGroup` cannot hold throwing tasks; this is the
            // throwing group, and it collects what the tasks return.
            let users = try await withThrowingTaskGroup(of: User.self) { group in
                for id in userIds {
                    group.addTask {
                        try await client.api.users.get(id: id)
                    }
                }
                var all: [User] = []
                for try await user in group { all.append(user) }
                return all
            }
            #expect(Set(users.map(\.id)) == Set(userIds))
            await client.disconnect()
        }
    }

    @Test("a service actor caches what it fetched through the client")
    func customServiceActor() async throws {
        try await withDemoServer { url, server in
            let client = try RpcClient(url: url)
            try await client.connect()
            let service = UserService(client: client)
            let first = try await service.getUser(id: "456")
            server.resetTraffic()
            let cached = try await service.getUser(id: "456")
            #expect(first.name == "Carol Diaz" && cached.name == first.name)
            #expect(server.traffic.pushes == 0)
            await service.invalidateCache()
            _ = try await service.getUser(id: "456")
            #expect(server.traffic.pulls == 1)
            await client.disconnect()
        }
    }
}
