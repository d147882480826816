public import RivetKit

/// One client connection to an actor as hooks and actions see it: who the actor is and the
/// connection parameters the client sent (`x-rivet-conn-params` for HTTP actions, the
/// `rivet_conn_params.…` subprotocol for the realtime connection).
public struct ActorConnectionInfo: Sendable {
    /// The connection's id (`conn_…`), as sent in `Init`.
    public var id: String
    /// The actor's id.
    public var actorId: String
    /// The actor's name in the registry.
    public var actorName: String
    /// The actor's key.
    public var key: [String]
    /// The namespace the actor lives in.
    public var namespace: String
    /// The connection parameters; `nil` when the client sent none.
    public var params: JSONValue?

    /// Creates a description.
    public init(id: String, actorId: String, actorName: String, key: [String], namespace: String, params: JSONValue?) {
        self.id = id
        self.actorId = actorId
        self.actorName = actorName
        self.key = key
        self.namespace = namespace
        self.params = params
    }

    /// The parameters decoded as `T`.
    ///
    /// - Throws: ``ActorError`` `request.invalid_params` when there are none or they
    ///   do not decode.
    public func params<T: Decodable>(as type: T.Type) throws(ActorError) -> T {
        guard let params else { throw ActorError(.requestInvalidParams, "no connection parameters") }
        do {
            return try JSONValueDecoder().decode(T.self, from: params)
        } catch {
            throw ActorError(.requestInvalidParams, "the connection parameters do not decode: \(error)")
        }
    }
}
