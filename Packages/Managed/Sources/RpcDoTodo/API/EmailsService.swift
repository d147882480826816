import CapnWeb

/// `api.emails`: `sendWelcome(userId)` records a welcome email (nothing leaves the process)
/// and returns `{sent, to}`.
final class EmailsService: RpcTarget {
    private let store: TodoStore

    init(store: TodoStore) {
        self.store = store
    }

    func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
        guard method == "sendWelcome" else { throw RpcErrorValue.notAFunction("emails.\(method)") }
        return try Self.sendWelcome(store: store, userID: try ArgumentReader(arguments, method: "emails.sendWelcome").id(0))
    }

    /// Records the welcome email to user `userID`.
    static func sendWelcome(store: TodoStore, userID: String) throws -> RpcPayload {
        let user = try store.user(userID)
        store.log("info", "welcome email sent to \(user.email)")
        return ["sent": true, "to": .string(user.email)]
    }
}
