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
    /// How the actor is found. Default ``ActorLookup/getOrCreate``.
    public var lookup: ActorLookup

    /// Creates options.
    public init(
        name: String, key: [String], params: JSONValue? = nil, createWithInput: JSONValue? = nil,
        createInRegion: String? = nil, enabled: Bool = true, lookup: ActorLookup = .getOrCreate
    ) {
        self.name = name
        self.key = key
        self.params = params
        self.createWithInput = createWithInput
        self.createInRegion = createInRegion
        self.enabled = enabled
        self.lookup = lookup
    }

    /// The identity hash: name, key and params in canonical JSON (input, region and `enabled`
    /// are not identity), plus the lookup when it is not get-or-create: an id handle is
    /// identified by name, id and params, and a `get` handle never shares a connection that may
    /// create the actor. Two users with the same hash share one connection.
    public var hash: String {
        var identity: JSONObject = [
            "name": .string(name), "key": .array(key.map(JSONValue.string)), "params": params ?? .null,
        ]
        switch lookup {
        case .getOrCreate:
            break
        case .get:
            _ = identity.updateValue("get", forKey: "lookup")
        case .id(let id):
            _ = identity.removeValue(forKey: "key")
            _ = identity.updateValue(.string(id), forKey: "actorId")
        }
        let value = JSONValue.object(identity)
        return (try? value.jsonString(canonical: true)) ?? value.description
    }
}
