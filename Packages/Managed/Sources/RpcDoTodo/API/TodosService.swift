import CapnWeb

/// `api.todos`: the todo list. `todos[id]` is the todo with its methods (``TodoHandle``).
final class TodosService: RpcTarget {
    private let store: TodoStore

    init(store: TodoStore) {
        self.store = store
    }

    func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
        let reader = ArgumentReader(arguments, method: "todos.\(method)")
        let maxText = store.limits.maxTextLength
        switch method {
        case "list":
            return try RpcPayload(encoding: try store.todos(status: try Self.status(arguments.value(at: 0))))
        case "get":
            return try RpcPayload(encoding: try store.todo(try reader.id(0)))
        case "create":
            let patch = try TodoPatch(arguments.value(at: 0), method: "todos.create", maxLength: maxText)
            guard let title = patch.title else { throw TodoErrors.type("todos.create: a title is required") }
            return try RpcPayload(encoding: try store.createTodo(title: title, completed: patch.completed ?? false))
        case "update":
            let patch = try TodoPatch(arguments.value(at: 1), method: "todos.update", maxLength: maxText)
            return try RpcPayload(encoding: try store.updateTodo(try reader.id(0), title: patch.title, completed: patch.completed))
        case "delete":
            return try RpcPayload(encoding: try store.deleteTodo(try reader.id(0)))
        case "deleteMany":
            let ids = try reader.ids(0, maximum: store.limits.maxListLimit)
            return ["deleted": .integer(Int64(store.deleteTodos(ids)))]
        case "search":
            let query = try reader.text(0, maxLength: maxText, allowEmpty: true).lowercased()
            try store.admitRateLimitedCall()
            let all = try store.todos(status: "all")
            return try RpcPayload(encoding: query.isEmpty ? all : all.filter { $0.title.lowercased().contains(query) })
        default:
            throw RpcErrorValue.notAFunction("todos.\(method)")
        }
    }

    /// `todos[id]`: the todo with its methods, or `NotFound`.
    func property(_ name: String) async throws -> RpcPayload {
        try TodoHandle.payload(store: store, id: name)
    }

    /// The list filter: missing, a status string, or an object with `status`.
    static func status(_ value: RpcPayload) throws -> String {
        switch value {
        case .null, .undefined: return "all"
        case .string(let status): return status.lowercased()
        case .object:
            if case .string(let status)? = value["status"] { return status.lowercased() }
            return "all"
        default: throw TodoErrors.type("todos.list: the filter must be a status string or {status}")
        }
    }
}
