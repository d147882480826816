import RivetKit
import Synchronization

/// This server's side of actor placement on a store several servers share
/// (``ActorLeaseStore``): takes, renews and gives up leases, remembers this node's endpoint, and
/// keeps the time of the last successful renewal, by which the server decides to stop serving
/// before its leases can have ended.
final class LeasePlacement: Sendable {
    let store: any ActorLeaseStore
    let nodeId: String
    let leaseDuration: Duration
    private let state = Mutex<(endpoint: String?, renewed: ContinuousClock.Instant, tokens: [String: String])>((nil, .now, [:]))

    /// The placement of `store`; `nil` when the store serves one server alone.
    init?(store: any ActorStore) {
        guard let store = store as? any ActorLeaseStore, let node = store.leaseNode else { return nil }
        self.store = store
        self.nodeId = node
        self.leaseDuration = store.leaseDuration
    }

    /// Where other nodes reach this one, once the server listens.
    var endpoint: String? {
        get { state.withLock { $0.endpoint } }
        set { state.withLock { $0.endpoint = newValue } }
    }

    /// How often leases are renewed: a third of their duration.
    var renewInterval: Duration { leaseDuration / 3 }

    /// How long after the last successful renewal this node stops serving its actors: two
    /// thirds of the lease, so that it has stopped before any lease it took can have expired.
    var renewalDeadline: Duration { leaseDuration * 2 / 3 }

    /// Takes the lease of `id`; `nil` when this node holds it, else its holder.
    ///
    /// - Throws: `actor.stopping` when the server does not listen yet or the store failed
    ///   (the client tries again).
    func acquire(_ id: String) async throws(ActorError) -> ActorLeaseHolder? {
        guard let endpoint else { throw ActorError(.actorStopping, "the server is not listening yet") }
        let lease: ActorLease
        do {
            lease = try await store.acquireLease(actorId: id, endpoint: endpoint)
        } catch {
            throw ActorError(.actorStopping, "the actor's lease could not be taken: \(error)")
        }
        switch lease {
        case .held(let token):
            state.withLock { $0.tokens[id] = token }
            return nil
        case .heldElsewhere(let holder):
            return holder
        }
    }

    /// Gives up this node's lease of `id`, as its last taking made it (a taking after this call
    /// keeps its lease); a failure leaves it to expire.
    func release(_ id: String) async {
        guard let token = state.withLock({ $0.tokens.removeValue(forKey: id) }) else { return }
        _ = try? await store.releaseLease(actorId: id, token: token)
    }

    /// Renews the leases of `ids`; returns those lost. A failure returns `nil`, and after
    /// ``renewalDeadline`` without a success ``isOverdue(now:)`` says so.
    func renew(_ ids: [String], now: ContinuousClock.Instant = .now) async -> Set<String>? {
        do {
            let lost = try await store.renewLeases(actorIds: ids)
            state.withLock { state in
                state.renewed = now
                for id in lost { state.tokens[id] = nil }
            }
            return lost
        } catch {
            return nil
        }
    }

    /// Whether the last successful renewal is older than ``renewalDeadline``.
    func isOverdue(now: ContinuousClock.Instant = .now) -> Bool {
        now - state.withLock { $0.renewed } >= renewalDeadline
    }

    /// The error that sends a request on to `holder`: `actor.stopping` (which RivetKit's clients
    /// retry) carrying the holder's endpoint for the server, which forwards rather than answers.
    func elsewhere(_ holder: ActorLeaseHolder) -> ActorError {
        ActorError(
            .actorStopping, "the actor is served by node \(holder.nodeId)",
            metadata: [Self.ownerKey: .string(holder.endpoint)])
    }

    /// The metadata key of the holder's endpoint in ``elsewhere(_:)``'s error.
    static let ownerKey = "rivetkit_owner_endpoint"

    /// The endpoint an error from ``elsewhere(_:)`` names; `nil` for any other error.
    static func owner(of error: ActorError) -> String? {
        guard error.group == "actor", error.code == "stopping", case .string(let endpoint)? = error.metadata?[ownerKey]
        else { return nil }
        return endpoint
    }

    /// `error` as a client may see it: without the holder's endpoint.
    static func forClient(_ error: ActorError) -> ActorError {
        guard owner(of: error) != nil else { return error }
        return ActorError(.actorStopping, "the actor is moving between nodes; try again")
    }
}
