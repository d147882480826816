public import RpcWire

/// What an action sees: the caller's identity and the server's queries and mutations, each of
/// which runs on its own (an action is not a transaction).
public struct TinyvexActionContext: Sendable {
    /// The caller's identity from the auth hook, `nil` when unauthenticated.
    public let identity: String?
    let engine: TinyvexEngine
    let connectionID: UInt64?

    /// Schedules functions, each stored at once.
    public var scheduler: TinyvexActionScheduler { TinyvexActionScheduler(engine: engine) }

    /// Runs the mutation `name` with `args` in its own transaction and returns its result.
    ///
    /// - Throws: ``TinyvexServerError``, as the mutation would answer a client.
    public func runMutation(_ name: String, args: JSONValue) async throws -> JSONValue {
        try await engine.mutate(connectionID: connectionID, identity: identity, requestID: nil, name: name, args: args).value
    }

    /// Runs the query `name` with `params` once and returns its value.
    ///
    /// - Throws: ``TinyvexServerError``, as the query would answer a client.
    public func runQuery(_ name: String, params: JSONValue) async throws -> JSONValue {
        try await engine.query(name: name, params: params, identity: identity)
    }
}
