#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import RpcDo
import RpcDoTodo
import Testing

// Seed: "Mocking RpcClient".
actor MockRpcClient {
    var responses: [String: Any] = [:]
    var callHistory: [(method: String, params: [RpcValue])] = []

    func setResponse<T>(for method: String, response: T) {
        responses[method] = response
    }

    func call(_ method: String, params: [RpcValue] = []) async throws -> RpcValue {
        callHistory.append((method, params))

        if let response = responses[method] {
            return RpcValue.from(response)
        }

        throw RpcError.notFound(method)
    }
}

/// The seed's "Testing" examples, in Swift Testing instead of XCTest (adapted: `setUp` became
/// the body's first lines, `XCTAssert…` became `#expect`).
@Suite("Seed examples: testing")
struct TestingExamples {
    @Test("TodoViewModel loads todos from a connected client")
    @MainActor
    func testLoadTodos() async throws {
        try await withDemoServer { url, _ in
            let client = try RpcClient(url: url)
            let viewModel = TodoViewModel(client: client)

            // Given a connected client
            try await client.connect()

            // When loading todos
            await viewModel.load()

            // Then todos should be populated
            #expect(!viewModel.todos.isEmpty)
            #expect(viewModel.error == nil)
            await client.disconnect()
        }
    }

    @Test("TodoViewModel filters by status")
    @MainActor
    func testFilteredTodos() async throws {
        try await withDemoServer { url, _ in
            let client = try RpcClient(url: url)
            let viewModel = TodoViewModel(client: client)

            // Given some todos
            viewModel.todos = [
                Todo(id: "1", title: "Active", completed: false, createdAt: .now, updatedAt: .now),
                Todo(id: "2", title: "Done", completed: true, createdAt: .now, updatedAt: .now),
            ]

            // When filtering by active
            viewModel.filter.status = .active

            // Then only active todos should show
            #expect(viewModel.filteredTodos.count == 1)
            #expect(viewModel.filteredTodos.first?.title == "Active")
        }
    }

    @Test("TodoViewModel creates, toggles, renames, deletes and clears completed todos")
    @MainActor
    func viewModelActions() async throws {
        try await withDemoServer { url, server in
            let client = try RpcClient(url: url)
            try await client.connect()
            let viewModel = TodoViewModel(client: client)
            await viewModel.load()
            try await viewModel.create(title: "Write the seed tests")
            #expect(viewModel.todos.first?.title == "Write the seed tests")
            let created = try #require(viewModel.todos.first)
            try await viewModel.toggle(created)
            #expect(viewModel.todos.first?.completed == true)
            try await viewModel.updateTitle(created, newTitle: "Seed tests written")
            #expect(viewModel.todos.first?.title == "Seed tests written")
            #expect(viewModel.completedCount == 2 && viewModel.activeCount == 2)
            try await viewModel.clearCompleted()
            #expect(viewModel.todos.allSatisfy { !$0.completed })
            #expect(server.store.todoCount == 2)
            let first = try #require(viewModel.todos.first)
            try await viewModel.delete(first)
            #expect(server.store.todoCount == 1)
            await client.disconnect()
        }
    }

    @Test("the mock client answers set responses and records calls")
    func mockClient() async throws {
        let mock = MockRpcClient()
        await mock.setResponse(for: "users.get", response: ["id": "1", "name": "Mock"])
        let value = try await mock.call("users.get", params: [.string("1")])
        #expect(value == .object(["id": .string("1"), "name": .string("Mock")]))
        await #expect(throws: RpcError.notFound("missing")) {
            _ = try await mock.call("missing")
        }
        #expect(await mock.callHistory.count == 2)
    }

    @Test("integration: create, update through a subscript, delete, then notFound")
    func testFullUserFlow() async throws {
        try await withDemoServer { url, _ in
            let client = try RpcClient(url: url)
            try await client.connect()

            // Create user
            let user: User = try await client.api.users.create(
                name: "Test User",
                email: "test-\(UUID())@example.com"
            )
            #expect(!user.id.isEmpty)

            // Update user
            let updated: User = try await client.api.users[user.id].update(
                name: "Updated Name"
            )
            #expect(updated.name == "Updated Name")

            // Delete user
            try await client.api.users.delete(id: user.id)

            // Verify deletion
            do {
                let _: User = try await client.api.users.get(id: user.id)
                Issue.record("Should have thrown notFound")
            } catch let error as RpcError {
                if case .notFound = error {
                    // Expected
                } else {
                    throw error
                }
            }
            await client.disconnect()
        }
    }

    @Test("call(_:params:) calls a method by name with RpcValue parameters")
    func directCall() async throws {
        try await withDemoServer { url, _ in
            let client = try RpcClient(url: url)
            try await client.connect()
            let echoed = try await client.call("echo", params: [.string("hi")])
            #expect(echoed == .string("hi"))
            await client.disconnect()
        }
    }
}
