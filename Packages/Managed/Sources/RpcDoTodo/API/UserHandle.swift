import CapnWeb

/// One user, reached as `authenticate(token).currentUser`: methods
/// `update(name or {name, email})`, `delete()`, `get()`; properties `id`, `name`, `email`,
/// `avatarUrl`, `displayName`, `profile` (a value) and `posts` (a ``PostsService`` for this user).
///
/// `users[id]` is ``payload(store:id:)``: the user's fields with `update`, `delete` as function
/// members and `posts`, so it can be awaited as a value and called.
final class UserHandle: RpcTarget {
    private let store: TodoStore
    private let id: String

    init(store: TodoStore, id: String) {
        self.store = store
        self.id = id
    }

    /// The user's fields plus `update` and `delete` as functions and `posts`.
    static func payload(store: TodoStore, id: String) throws -> RpcPayload {
        let handle = UserHandle(store: store, id: id)
        var members = try MethodMembers.members(
            of: try store.user(id), what: "user \(id)", methods: ["update", "delete"], of: handle)
        members.append(.init("posts", .stub(RpcStub(PostsService(store: store, userID: id)))))
        return .object(members)
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
        case "displayName": return .string(user.profile.displayName)
        case "profile": return try RpcPayload(encoding: user.profile)
        case "posts": return .stub(RpcStub(PostsService(store: store, userID: id)))
        default: return .undefined
        }
    }
}
