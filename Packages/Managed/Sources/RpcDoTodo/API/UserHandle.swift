import CapnWeb

/// One user, reached as `users[id]` or `authenticate(token).currentUser`: methods
/// `update(name or {name, email})`, `delete()`; properties `id`, `name`, `email`, `avatarUrl`,
/// `profile` (a value) and `posts` (a ``PostsService`` for this user).
final class UserHandle: RpcTarget {
    private let store: TodoStore
    private let id: String

    init(store: TodoStore, id: String) {
        self.store = store
        self.id = id
    }

    func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
        let maxText = store.limits.maxTextLength
        let context = "users[\(id)].\(method)"
        switch method {
        case "update":
            let value = arguments.value(at: 0)
            var name: String?
            var email: String?
            switch value {
            case .string(let text):
                name = try ArgumentReader.checked(text, method: context, maxLength: maxText, allowEmpty: false)
            case .object:
                if case .string(let text)? = value["name"] {
                    name = try ArgumentReader.checked(text, method: context, maxLength: maxText, allowEmpty: false)
                }
                if case .string(let text)? = value["email"] {
                    email = try ArgumentReader.checked(text, method: context, maxLength: maxText, allowEmpty: false)
                }
            default:
                throw TodoErrors.type("\(context): expected a name or {name, email}")
            }
            return try RpcPayload(encoding: try store.updateUser(id, name: name, email: email))
        case "delete":
            return try RpcPayload(encoding: try store.deleteUser(id))
        case "get":
            return try RpcPayload(encoding: try store.user(id))
        default:
            throw RpcErrorValue.notAFunction(context)
        }
    }

    func property(_ name: String) async throws -> RpcPayload {
        let user = try store.user(id)
        switch name {
        case "id": return .string(user.id)
        case "name": return .string(user.name)
        case "email": return .string(user.email)
        case "avatarUrl": return .string(user.avatarUrl)
        case "profile": return try RpcPayload(encoding: user.profile)
        case "posts": return .stub(RpcStub(PostsService(store: store, userID: id)))
        default: return .undefined
        }
    }
}
