#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import CapnWeb

/// One todo: methods `update(patch)`, `toggle()`, `delete()`, `get()`; properties are the
/// todo's fields, read when asked.
///
/// `todos[id]` is ``payload(store:id:)``: the todo's fields with these methods as function
/// members, so it can be awaited as a value and called (`todos[id].update(true)`).
final class TodoHandle: RpcTarget {
    private let store: TodoStore
    private let id: String

    init(store: TodoStore, id: String) {
        self.store = store
        self.id = id
    }

    /// The todo's fields plus `update`, `toggle` and `delete` as functions.
    static func payload(store: TodoStore, id: String) throws -> RpcPayload {
        let handle = TodoHandle(store: store, id: id)
        let members = try MethodMembers.members(
            of: try store.todo(id), what: "todo \(id)", methods: ["update", "toggle", "delete"], of: handle)
        return .object(members)
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
