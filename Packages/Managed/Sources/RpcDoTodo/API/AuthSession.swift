import CapnWeb

/// What `authenticate(token)` returns: `currentUser` (also `user`) is the signed-in user's
/// ``UserHandle``, so `authenticate(token).currentUser.profile.displayName` is one pipeline.
final class AuthSession: RpcTarget {
    private let store: TodoStore
    private let userID: String

    init(store: TodoStore, userID: String) {
        self.store = store
        self.userID = userID
    }

    func property(_ name: String) async throws -> RpcPayload {
        switch name {
        case "currentUser", "user": .stub(RpcStub(UserHandle(store: store, id: userID)))
        case "userId": .string(userID)
        default: .undefined
        }
    }
}
