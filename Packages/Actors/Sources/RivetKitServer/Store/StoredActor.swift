public import RivetKit

/// An actor as a store keeps it: its identity, its state and when it was created.
public struct StoredActor: Sendable, Hashable {
    /// The actor's id.
    public var id: String
    /// The namespace it lives in.
    public var namespace: String
    /// The actor type's name.
    public var name: String
    /// The key.
    public var key: [String]
    /// The last saved state.
    public var state: JSONValue
    /// When it was created, in milliseconds since 1970.
    public var createdAt: Int64

    /// Creates a record.
    public init(id: String, namespace: String, name: String, key: [String], state: JSONValue, createdAt: Int64) {
        self.id = id
        self.namespace = namespace
        self.name = name
        self.key = key
        self.state = state
        self.createdAt = createdAt
    }
}
