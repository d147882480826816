/// Where an actor server keeps its actors durably. The server saves an actor's state after
/// every action that changed it and before answering, so a conforming store that has
/// returned from ``saveState(id:state:)`` must keep the state across restarts.
///
/// ``SQLiteActorStore`` is the embedded implementation; another database can stand behind
/// the same protocol.
public protocol ActorStore: Sendable {
    /// The actor of a namespace, name and key; `nil` when there is none.
    func actor(namespace: String, name: String, key: [String]) async throws -> StoredActor?
    /// The actor with an id; `nil` when there is none.
    func actor(id: String) async throws -> StoredActor?
    /// Inserts `actor` unless one with its namespace, name and key exists; returns the one
    /// stored and whether it was inserted.
    func insert(_ actor: StoredActor) async throws -> (actor: StoredActor, inserted: Bool)
    /// Replaces an actor's state.
    func saveState(id: String, state: JSONValue) async throws
    /// Removes an actor; returns whether there was one.
    func delete(id: String) async throws -> Bool
}
