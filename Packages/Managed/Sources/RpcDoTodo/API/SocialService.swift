import CapnWeb

/// `api.social`: `following(userId)` lists the users `userId` follows.
final class SocialService: RpcTarget {
    private let store: TodoStore

    init(store: TodoStore) {
        self.store = store
    }

    func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
        guard method == "following" else { throw RpcErrorValue.notAFunction("social.\(method)") }
        return try RpcPayload(encoding: try store.following(of: try ArgumentReader(arguments, method: "social.following").id(0)))
    }
}
