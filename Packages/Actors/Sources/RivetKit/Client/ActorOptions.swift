/// What identifies an actor and how to create it, normalised: what `@Actor` and
/// ``ActorObservable`` were given.
///
/// The key is one string or several, the connection parameters and the creation input any
/// `Encodable` values, as `@Actor` takes them:
///
/// ```swift
/// struct Params: Encodable { var user: String }
/// let options = ActorOptions(name: "chat", key: "room-1", params: Params(user: "ann"))
/// ```
///
/// A value that cannot be encoded as JSON leaves its field `nil` and sets ``encodingError``;
/// an ``ActorObservable`` given such options reports that error and does not connect.
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
    /// Why ``params`` or ``createWithInput``, given as `Encodable` values, could not be encoded
    /// (`client.config_error`); `nil` when they could.
    public var encodingError: ActorError?

    /// Creates options with a one-part key; `params` and `createWithInput` are encoded as JSON
    /// (a failure sets ``encodingError``).
    public init(
        name: String, key: String, params: (any Encodable)? = nil, createWithInput: (any Encodable)? = nil,
        createInRegion: String? = nil, enabled: Bool = true
    ) {
        self.init(
            name: name, key: [key], params: params, createWithInput: createWithInput, createInRegion: createInRegion,
            enabled: enabled)
    }

    /// Creates options with a key of several parts; `params` and `createWithInput` are encoded
    /// as JSON (a failure sets ``encodingError``).
    public init(
        name: String, key: [String], params: (any Encodable)? = nil, createWithInput: (any Encodable)? = nil,
        createInRegion: String? = nil, enabled: Bool = true
    ) {
        var encodingError: ActorError?
        func encode(_ value: (any Encodable)?, as field: String) -> JSONValue? {
            guard let value else { return nil }
            if let json = value as? JSONValue { return json }
            do {
                return try JSONValueEncoder().encode(value)
            } catch {
                encodingError = encodingError ?? ActorError(.clientConfigError, "\(field) cannot be encoded: \(error)")
                return nil
            }
        }
        self.init(
            name: name, key: key, params: encode(params, as: "params"),
            createWithInput: encode(createWithInput, as: "createWithInput"), createInRegion: createInRegion,
            enabled: enabled, lookup: .getOrCreate)
        self.encodingError = encodingError
    }

    /// Creates options from JSON values.
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
