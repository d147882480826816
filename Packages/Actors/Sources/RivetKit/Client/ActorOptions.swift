/// What identifies an actor and how to create it, normalised: what `@Actor` and
/// ``ActorObservable`` were given.
public struct ActorOptions: Sendable, Hashable {
    /// The actor type's name.
    public var name: String
    /// The key.
    public var key: [String]
    /// The connection parameters, as JSON.
    public var params: JSONValue?
    /// The creation input, as JSON.
    public var createWithInput: JSONValue?
    /// The region hint for creation.
    public var createInRegion: String?
    /// Whether the actor is active.
    public var enabled: Bool

    /// Creates options.
    public init(
        name: String, key: [String], params: JSONValue? = nil, createWithInput: JSONValue? = nil,
        createInRegion: String? = nil, enabled: Bool = true
    ) {
        self.name = name
        self.key = key
        self.params = params
        self.createWithInput = createWithInput
        self.createInRegion = createInRegion
        self.enabled = enabled
    }

    /// The identity hash: name, key and params in canonical JSON (input, region and `enabled`
    /// are not identity). Two users with the same hash share one connection.
    public var hash: String {
        let identity: JSONValue = [
            "name": .string(name), "key": .array(key.map(JSONValue.string)), "params": params ?? .null,
        ]
        return (try? identity.jsonString(canonical: true)) ?? identity.description
    }
}
