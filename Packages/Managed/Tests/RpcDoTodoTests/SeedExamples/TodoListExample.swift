// Foundation itself (not only FoundationEssentials): `localizedDescription` lives there, and
// `import SwiftUI` in the seed brings it.
import Foundation
import Observation
import RpcDo

// Seed: "Todo List Example", the Models and the View Model (the SwiftUI views are left out).
// Adapted: `import SwiftUI` became `import Foundation` and `import Observation`; the class is
// `@MainActor` so that Swift 6 accepts its `@MainActor` methods mutating it.

struct Todo: Identifiable, Codable, Sendable {
    let id: String
    var title: String
    var completed: Bool
    var createdAt: Date
    var updatedAt: Date
}

struct TodoFilter: Sendable {
    enum Status: String, Sendable, Codable {
        case all
        case active
        case completed
    }

    var status: Status = .all
    var searchQuery: String = ""
}

@MainActor
@Observable
final class TodoViewModel {
    private let client: RpcClient

    var todos: [Todo] = []
    var filter = TodoFilter()
    var isLoading = false
    var error: RpcError?

    var filteredTodos: [Todo] {
        todos.filter { todo in
            // Status filter
            switch filter.status {
            case .all: break
            case .active: guard !todo.completed else { return false }
            case .completed: guard todo.completed else { return false }
            }

            // Search filter
            if !filter.searchQuery.isEmpty {
                guard todo.title.localizedCaseInsensitiveContains(filter.searchQuery) else {
                    return false
                }
            }

            return true
        }
    }

    var activeCount: Int {
        todos.filter { !$0.completed }.count
    }

    var completedCount: Int {
        todos.filter { $0.completed }.count
    }

    init(client: RpcClient) {
        self.client = client
    }

    @MainActor
    func load() async {
        isLoading = true
        error = nil
        defer { isLoading = false }

        do {
            todos = try await client.api.todos.list()
        } catch let rpcError as RpcError {
            self.error = rpcError
        } catch {
            self.error = .invalidResponse(error.localizedDescription)
        }
    }

    @MainActor
    func create(title: String) async throws {
        let todo: Todo = try await client.api.todos.create(title: title)
        todos.insert(todo, at: 0)
    }

    @MainActor
    func toggle(_ todo: Todo) async throws {
        let updated: Todo = try await client.api.todos[todo.id].update(
            completed: !todo.completed
        )

        if let index = todos.firstIndex(where: { $0.id == todo.id }) {
            todos[index] = updated
        }
    }

    @MainActor
    func delete(_ todo: Todo) async throws {
        try await client.api.todos.delete(id: todo.id)
        todos.removeAll { $0.id == todo.id }
    }

    @MainActor
    func clearCompleted() async throws {
        let completedIds = todos.filter { $0.completed }.map { $0.id }
        try await client.api.todos.deleteMany(ids: completedIds)
        todos.removeAll { $0.completed }
    }

    @MainActor
    func updateTitle(_ todo: Todo, newTitle: String) async throws {
        let updated: Todo = try await client.api.todos[todo.id].update(
            title: newTitle
        )

        if let index = todos.firstIndex(where: { $0.id == todo.id }) {
            todos[index] = updated
        }
    }
}
