import CapnWebMacros

// The seed's Todo services written with `@Rpc`.

@Rpc final class MacroTodoRoot {
    private let store: SeedTodoStore

    init(store: SeedTodoStore) {
        self.store = store
    }

    var todos: MacroTodoCollection { MacroTodoCollection(store: store) }
    var users: MacroUser { MacroUser(user: store.user("u1")) }

    func authenticate(token: String) throws -> MacroAuthenticated {
        guard token == "secret" else {
            throw RpcErrorValue(name: "AuthError", message: "bad token")
        }
        return MacroAuthenticated(currentUser: store.user("u2"), todos: MacroTodoCollection(store: store))
    }
}

@Rpc final class MacroTodoCollection {
    private let store: SeedTodoStore

    init(store: SeedTodoStore) {
        self.store = store
    }

    func list(filter: TodoFilter?) -> [Todo] { store.list(filter) }
    func get(id: String) throws -> Todo { try store.todo(id) }
    func create(title: String) -> Todo { store.create(title) }
    subscript(id: String) -> MacroSingleTodo { MacroSingleTodo(store: store, id: id) }

    /// Not callable remotely: private.
    private func purge() {
        for todo in store.list(nil) { store.delete(todo.id) }
    }

    /// Not callable remotely: its name starts with an underscore.
    func _purge() {
        purge()
    }
}

@Rpc actor MacroSingleTodo {
    private let store: SeedTodoStore
    private let id: String

    init(store: SeedTodoStore, id: String) {
        self.store = store
        self.id = id
    }

    var author: MacroUser {
        get throws { MacroUser(user: store.user(try store.todo(id).authorId)) }
    }

    func get() throws -> Todo { try store.todo(id) }
    func update(completed: Bool) throws -> Todo { try store.update(id, completed: completed) }
    @RpcName("delete") func remove() { store.delete(id) }
}

@Rpc final class MacroUser {
    private let user: User

    init(user: User) {
        self.user = user
    }

    var name: String { user.name }
    func get() -> User { user }
}

@Rpc final class MacroAuthenticated {
    let currentUser: User
    let todos: MacroTodoCollection

    init(currentUser: User, todos: MacroTodoCollection) {
        self.currentUser = currentUser
        self.todos = todos
    }
}
