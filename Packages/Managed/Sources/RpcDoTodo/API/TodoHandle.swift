#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import CapnWeb

/// `todos[id]`: one todo. Methods `update(patch)`, `toggle()`, `delete()`; properties are the
/// todo's fields, read when asked.
final class TodoHandle: RpcTarget {
    private let store: TodoStore
    private let id: String

    init(store: TodoStore, id: String) {
        self.store = store
        self.id = id
    }

    func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
        switch method {
        case "update":
            let patch = try TodoPatch(arguments.value(at: 0), method: "todos[id].update", maxLength: store.limits.maxTextLength)
            return try RpcPayload(encoding: try store.updateTodo(id, title: patch.title, completed: patch.completed))
        case "toggle":
            let todo = try store.todo(id)
            return try RpcPayload(encoding: try store.updateTodo(id, title: nil, completed: !todo.completed))
        case "delete":
            return try RpcPayload(encoding: try store.deleteTodo(id))
        case "get":
            return try RpcPayload(encoding: try store.todo(id))
        default:
            throw RpcErrorValue.notAFunction("todos[\(id)].\(method)")
        }
    }

    func property(_ name: String) async throws -> RpcPayload {
        let todo = try store.todo(id)
        switch name {
        case "id": return .string(todo.id)
        case "title": return .string(todo.title)
        case "completed": return .bool(todo.completed)
        case "createdAt": return try RpcPayload(encoding: todo.createdAt)
        case "updatedAt": return try RpcPayload(encoding: todo.updatedAt)
        default: return .undefined
        }
    }
}
