import CapnWebMacros

// The seed's typed API, spelled as the seed spells it ("Typed APIs with Protocols").

@RpcProtocol
protocol TodoAPI {
    var todos: TodoService { get async throws }
    var users: UserService { get async throws }
    func authenticate(token: String) async throws -> AuthenticatedAPI
}

@RpcProtocol
protocol TodoService {
    func list(filter: TodoFilter?) async throws -> [Todo]
    func get(id: String) async throws -> Todo
    func create(title: String) async throws -> Todo
    subscript(id: String) -> SingleTodoService { get }
}

@RpcProtocol
protocol SingleTodoService {
    var author: UserService { get async throws }
    func get() async throws -> Todo
    func update(completed: Bool) async throws -> Todo
    func delete() async throws
}

@RpcProtocol
protocol AuthenticatedAPI {
    var currentUser: User { get async throws }
    var todos: TodoService { get async throws }
}

@RpcProtocol
protocol UserService {
    var name: String { get async throws }
    func get() async throws -> User
}
