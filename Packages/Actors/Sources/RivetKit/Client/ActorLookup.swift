/// How a handle finds its actor: by name and key (creating it or not), or by its id.
///
/// ```swift
/// let byId = ActorOptions(name: "counter", key: [], lookup: .id("a1b2"))
/// ```
public enum ActorLookup: Sendable, Hashable {
    /// By name and key, created on first use when there is none (`getOrCreate`).
    case getOrCreate
    /// By name and key, never created: a missing actor is `actor.not_found` (`get`).
    case get
    /// By the actor's id (`getForId`, and the handles `create` returns); the key is only
    /// informative.
    case id(String)
}

extension ActorLookup {
    /// Whether this is ``id(_:)``.
    var isId: Bool {
        if case .id = self { return true }
        return false
    }
}
