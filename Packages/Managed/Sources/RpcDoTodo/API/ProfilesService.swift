import CapnWeb

/// `api.profiles`: `forUser(userId)` and `create(userId, defaults)`, where `defaults` is
/// `"standard"`, `"minimal"` or `{bio, preferences}`.
final class ProfilesService: RpcTarget {
    private let store: TodoStore

    init(store: TodoStore) {
        self.store = store
    }

    func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
        let reader = ArgumentReader(arguments, method: "profiles.\(method)")
        switch method {
        case "forUser":
            return try RpcPayload(encoding: try store.user(try reader.id(0)).profile)
        case "create":
            let userID = try reader.id(0)
            let defaults = arguments.value(at: 1)
            var bio: String?
            var preferences: [String: String]?
            switch defaults {
            case .null, .undefined, .string("standard"):
                bio = "New here."
                preferences = ["theme": "system", "language": "en", "notifications": "on"]
            case .string("minimal"):
                preferences = ["notifications": "off"]
            case .object:
                bio = defaults["bio"].flatMap { if case .string(let text) = $0 { text } else { nil } }
                preferences = try defaults["preferences"].map { try $0.decode([String: String].self) }
            default:
                throw TodoErrors.type("profiles.create: defaults must be standard, minimal or {bio, preferences}")
            }
            return try RpcPayload(encoding: try store.updateProfile(userID, bio: bio, preferences: preferences))
        default:
            throw RpcErrorValue.notAFunction("profiles.\(method)")
        }
    }
}
