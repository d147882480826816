import CapnWeb

/// `api.posts` (`forUser(id)`) and a user's `posts` (`list(limit)`).
final class PostsService: RpcTarget {
    private let store: TodoStore
    private let userID: String?

    init(store: TodoStore, userID: String?) {
        self.store = store
        self.userID = userID
    }

    func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
        let reader = ArgumentReader(arguments, method: "posts.\(method)")
        let maxList = store.limits.maxListLimit
        switch method {
        case "list" where userID != nil:
            return try RpcPayload(encoding: try store.posts(of: userID ?? "", limit: try reader.limit(0, default: maxList, maximum: maxList)))
        case "forUser":
            return try RpcPayload(encoding: try store.posts(of: try reader.id(0), limit: try reader.limit(1, default: maxList, maximum: maxList)))
        default:
            throw RpcErrorValue.notAFunction("posts.\(method)")
        }
    }
}
