import CapnWebMacros

// The same services written by hand, switching on names, to compare answers with.

final class HandTodoRoot: RpcTarget {
    private let store: SeedTodoStore

    init(store: SeedTodoStore) {
        self.store = store
    }

    func propertyImmediately(_ name: String) throws -> RpcPayload? {
        switch name {
        case "todos": return .stub(RpcStub(HandTodoCollection(store: store)))
        case "users": return .stub(RpcStub(HandUser(user: store.user("u1"))))
        default: return nil
        }
    }

    func callImmediately(_ method: String, with arguments: RpcArguments) throws -> RpcPayload? {
        switch method {
        case "authenticate":
            guard try arguments.decode(0, as: String.self) == "secret" else {
                throw RpcErrorValue(name: "AuthError", message: "bad token")
            }
            return .stub(RpcStub(HandAuthenticated(currentUser: store.user("u2"), todos: HandTodoCollection(store: store))))
        default:
            return nil
        }
    }
}

final class HandTodoCollection: RpcTarget {
    private let store: SeedTodoStore

    init(store: SeedTodoStore) {
        self.store = store
    }

    func callImmediately(_ method: String, with arguments: RpcArguments) throws -> RpcPayload? {
        switch method {
        case "list": return try RpcPayload(encoding: store.list(try arguments.decode(0, as: TodoFilter?.self)))
        case "get": return try RpcPayload(encoding: try store.todo(try arguments.decode(0, as: String.self)))
        case "create": return try RpcPayload(encoding: store.create(try arguments.decode(0, as: String.self)))
        default: return nil
        }
    }

    func propertyImmediately(_ name: String) throws -> RpcPayload? {
        .stub(RpcStub(HandSingleTodo(store: store, id: name)))
    }
}

final class HandSingleTodo: RpcTarget {
    private let store: SeedTodoStore
    private let id: String

    init(store: SeedTodoStore, id: String) {
        self.store = store
        self.id = id
    }

    func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
        switch method {
        case "get": return try RpcPayload(encoding: try store.todo(id))
        case "update": return try RpcPayload(encoding: try store.update(id, completed: try arguments.decode(0, as: Bool.self)))
        case "delete":
            store.delete(id)
            return .undefined
        default: throw RpcErrorValue.notAFunction(method)
        }
    }

    func property(_ name: String) async throws -> RpcPayload {
        switch name {
        case "author": return .stub(RpcStub(HandUser(user: store.user(try store.todo(id).authorId))))
        default: return .undefined
        }
    }
}

final class HandUser: RpcTarget {
    private let user: User

    init(user: User) {
        self.user = user
    }

    func propertyImmediately(_ name: String) throws -> RpcPayload? {
        name == "name" ? .string(user.name) : nil
    }

    func callImmediately(_ method: String, with arguments: RpcArguments) throws -> RpcPayload? {
        method == "get" ? try RpcPayload(encoding: user) : nil
    }
}

final class HandAuthenticated: RpcTarget {
    private let currentUser: User
    private let todos: HandTodoCollection

    init(currentUser: User, todos: HandTodoCollection) {
        self.currentUser = currentUser
        self.todos = todos
    }

    func propertyImmediately(_ name: String) throws -> RpcPayload? {
        switch name {
        case "currentUser": return try RpcPayload(encoding: currentUser)
        case "todos": return .stub(RpcStub(todos))
        default: return nil
        }
    }
}
