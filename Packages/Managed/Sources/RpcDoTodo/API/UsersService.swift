import CapnWeb

/// `api.users`: the user directory. `users[id]` is the user with its methods (``UserHandle``);
/// `current` is the signed-in demo user (`123`) and `all` every user, as values.
final class UsersService: RpcTarget {
    private let store: TodoStore

    init(store: TodoStore) {
        self.store = store
    }

    func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
        let reader = ArgumentReader(arguments, method: "users.\(method)")
        let maxText = store.limits.maxTextLength
        switch method {
        case "get":
            return try RpcPayload(encoding: try store.user(try reader.id(0)))
        case "list":
            return try RpcPayload(encoding: store.users())
        case "create":
            let name = try reader.text(0, maxLength: maxText)
            let email = try reader.text(1, maxLength: maxText)
            return try RpcPayload(encoding: try store.createUser(name: name, email: email))
        case "delete":
            return try RpcPayload(encoding: try store.deleteUser(try reader.id(0)))
        case "authenticate":
            let userID = try store.userID(forToken: try reader.text(0, maxLength: maxText))
            return .stub(RpcStub(AuthSession(store: store, userID: userID)))
        case "waitForRegistration":
            return try RpcPayload(encoding: try store.acceptInvitation(try reader.text(0, maxLength: maxText)))
        case "streamUpdates":
            return .readable(try store.subscribe("users"))
        default:
            throw RpcErrorValue.notAFunction("users.\(method)")
        }
    }

    func property(_ name: String) async throws -> RpcPayload {
        switch name {
        case "current": return try RpcPayload(encoding: try store.currentUser())
        case "all": return try RpcPayload(encoding: store.users())
        default: return try UserHandle.payload(store: store, id: name)
        }
    }
}
