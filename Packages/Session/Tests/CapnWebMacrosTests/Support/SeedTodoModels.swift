import CapnWebMacros
import Synchronization

/// A todo of the seed's examples.
struct Todo: Codable, Sendable, Equatable {
    var id: String
    var title: String
    var completed: Bool
    var authorId: String
}

/// A user of the seed's examples.
struct User: Codable, Sendable, Equatable {
    var id: String
    var name: String
}

/// Which todos `list(filter:)` returns.
enum TodoFilter: String, Codable, Sendable {
    case active
    case completed
}

/// The todos and users the seed's services share, behind a lock.
final class SeedTodoStore: Sendable {
    private let state = Mutex<(todos: [Todo], nextId: Int)>(([], 1))
    /// The users, by id.
    let users: [String: User] = [
        "u1": User(id: "u1", name: "Ada"),
        "u2": User(id: "u2", name: "Grace"),
    ]

    init() {
        state.withLock {
            $0.todos = [
                Todo(id: "1", title: "write the macros", completed: false, authorId: "u1"),
                Todo(id: "2", title: "test them", completed: true, authorId: "u2"),
            ]
            $0.nextId = 3
        }
    }

    func list(_ filter: TodoFilter?) -> [Todo] {
        let todos = state.withLock { $0.todos }
        switch filter {
        case .active: return todos.filter { !$0.completed }
        case .completed: return todos.filter(\.completed)
        case nil: return todos
        }
    }

    func todo(_ id: String) throws -> Todo {
        guard let todo = state.withLock({ $0.todos.first { $0.id == id } }) else {
            throw RpcErrorValue(name: "NotFound", message: "no todo \(id)")
        }
        return todo
    }

    func create(_ title: String) -> Todo {
        state.withLock {
            let todo = Todo(id: String($0.nextId), title: title, completed: false, authorId: "u1")
            $0.nextId += 1
            $0.todos.append(todo)
            return todo
        }
    }

    func update(_ id: String, completed: Bool) throws -> Todo {
        try state.withLock {
            guard let index = $0.todos.firstIndex(where: { $0.id == id }) else {
                throw RpcErrorValue(name: "NotFound", message: "no todo \(id)")
            }
            $0.todos[index].completed = completed
            return $0.todos[index]
        }
    }

    func delete(_ id: String) {
        state.withLock { $0.todos.removeAll { $0.id == id } }
    }

    func user(_ id: String) -> User {
        users[id] ?? User(id: id, name: "unknown")
    }
}
