/// An ``ActorStore`` that several servers share, placing each awake actor on exactly one of
/// them through a lease: a row naming the node that holds the actor and until when.
///
/// A server whose store places actors (``leaseNode`` not `nil`) takes an actor's lease before
/// it wakes the actor, renews the leases of its awake actors every third of ``leaseDuration``,
/// gives a lease up when its actor sleeps or is destroyed, and forwards a request for an actor
/// another node holds to that node. A server that cannot renew stops serving its actors before
/// their leases end, so no actor is ever served by two nodes; the store refuses to save the
/// state of an actor whose lease the saving node no longer holds.
public protocol ActorLeaseStore: ActorStore {
    /// This server's node name when the store places actors; `nil` when it serves one server
    /// alone (then no lease is taken).
    var leaseNode: String? { get }

    /// How long a lease lasts unless renewed.
    var leaseDuration: Duration { get }

    /// Takes the lease of `actorId` for this node when no node holds it, its holder's lease has
    /// expired, or this node holds it already (then it is extended), recording `endpoint` as
    /// where other nodes reach this one. Each taking gets a new token, which only its
    /// ``releaseLease(actorId:token:)`` matches.
    ///
    /// - Returns: ``ActorLease/held(token:)`` when this node holds the lease now; otherwise the
    ///   node that does.
    func acquireLease(actorId: String, endpoint: String) async throws -> ActorLease

    /// Extends this node's unexpired leases of `actorIds`.
    ///
    /// - Returns: The ids among `actorIds` whose lease this node does not hold any more.
    func renewLeases(actorIds: [String]) async throws -> Set<String>

    /// Gives up the lease of `actorId` that the taking with `token` made, if it is still that
    /// one: a release that arrives after the same node took the lease again leaves the new one.
    func releaseLease(actorId: String, token: String) async throws
}

/// What taking an actor's lease gave.
public enum ActorLease: Sendable, Hashable {
    /// This node holds the lease, under this taking's token.
    case held(token: String)
    /// Another node holds it.
    case heldElsewhere(ActorLeaseHolder)
}

/// The node holding an actor's lease, and where to reach it.
public struct ActorLeaseHolder: Sendable, Hashable {
    /// The node's name.
    public var nodeId: String
    /// The node's endpoint, `http://host:port`.
    public var endpoint: String

    /// Creates a holder.
    public init(nodeId: String, endpoint: String) {
        self.nodeId = nodeId
        self.endpoint = endpoint
    }
}
