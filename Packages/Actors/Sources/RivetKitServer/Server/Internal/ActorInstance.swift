import RivetKit
import Synchronization

/// One awake actor: its state in memory, its connections, and the queue that runs its actions
/// one at a time, saving the state after each action that changed it and before answering.
final class ActorInstance: Sendable {
    let record: StoredActor
    let behavior: any ActorBehavior
    let broadcaster: ActorBroadcaster
    private let store: any ActorStore
    private let queue = SerialQueue()
    private let maxConnections: Int
    private let maxStateSize: Int

    private struct Activity {
        var state: ActorStateValue
        var running = 0
        var connections = 0
        var lastActive = ContinuousClock.now
        var closers: [String: @Sendable (ActorError) -> Void] = [:]
    }

    private let activity: Mutex<Activity>

    /// An awake actor starting from `state`, its saved state as ``ActorBehavior/loadState(_:)``
    /// read it.
    init(
        record: StoredActor, state: ActorStateValue, behavior: any ActorBehavior, store: any ActorStore,
        configuration: ActorServerConfiguration
    ) {
        self.record = record
        self.behavior = behavior
        self.store = store
        self.maxConnections = configuration.maxConnectionsPerActor
        self.maxStateSize = configuration.maxStateSize
        self.broadcaster = ActorBroadcaster(
            maxSubscriptions: configuration.maxSubscriptionsPerConnection,
            maxSubscriptionBytes: configuration.maxSubscriptionBytesPerConnection,
            maxFrameSize: configuration.maxMessageSize)
        self.activity = Mutex(Activity(state: state))
    }

    /// The state in memory (saved already).
    var state: JSONValue { activity.withLock { $0.state.json } }

    /// A place in the action queue, for a caller that must keep its actions in order.
    func ticket() -> UInt64 {
        queue.ticket()
    }

    /// Runs an action after the ones before it (those of earlier tickets); the new state is
    /// saved before this returns.
    nonisolated(nonsending) func perform(
        _ name: String, args: [JSONValue], connection: ActorConnectionInfo, ticket: UInt64? = nil
    ) async throws(ActorError) -> JSONValue {
        let ticket = ticket ?? queue.ticket()
        activity.withLock { $0.running += 1 }
        defer {
            activity.withLock {
                $0.running -= 1
                $0.lastActive = .now
            }
        }
        return try await queue.run(ticket: ticket) { () async throws(ActorError) -> JSONValue in
            let before = self.activity.withLock { $0.state }
            let (after, output) = try await self.behavior.perform(
                name, args: args, state: before, connection: connection, broadcaster: self.broadcaster)
            if after.json != before.json {
                // Checked before it is stored, so that a saved state can always be read back.
                try Self.check(after.json, limit: self.maxStateSize)
                do {
                    try await self.store.saveState(id: self.record.id, state: after.json)
                } catch {
                    throw ActorError(.rivetkitInternalError, "the state could not be saved")
                }
            }
            self.activity.withLock { $0.state = after }
            return output
        }
    }

    /// Refuses a state that cannot be stored as JSON (a non-finite number, nesting past the
    /// writer's limit) or whose JSON is over `limit` bytes; the action (or creation) that made
    /// it fails and the state stays as it was.
    static func check(_ state: JSONValue, limit maxStateSize: Int) throws(ActorError) {
        let size: Int
        do {
            size = try state.jsonString().utf8.count
        } catch {
            throw ActorError(.actorStateInvalid, "the new state cannot be stored as JSON: \(error.message)")
        }
        guard size <= maxStateSize else {
            throw ActorError(
                .actorStateTooLarge,
                "the new state is \(size) bytes of JSON, over the limit of \(maxStateSize)",
                metadata: ["size": .integer(Int64(size)), "limit": .integer(Int64(maxStateSize))])
        }
    }

    /// Admits a connection: the before-connect hook, the connection limit, then the connect hook.
    func connect(
        _ connection: ActorConnectionInfo,
        deliver: @escaping @Sendable (String) -> Void,
        close: @escaping @Sendable (ActorError) -> Void
    ) async throws(ActorError) {
        try await behavior.beforeConnect(connection)
        let admitted = activity.withLock { activity -> Bool in
            guard activity.connections < maxConnections else { return false }
            activity.connections += 1
            activity.closers[connection.id] = close
            return true
        }
        guard admitted else {
            throw ActorError(.actorTooManyConnections, "the actor has \(maxConnections) connections")
        }
        broadcaster.add(connectionId: connection.id, deliver: deliver)
        await behavior.connected(connection)
    }

    /// Lets a connection go and runs the disconnect hook.
    func disconnect(_ connection: ActorConnectionInfo) async {
        broadcaster.remove(connectionId: connection.id)
        activity.withLock {
            $0.connections -= 1
            $0.closers[connection.id] = nil
            $0.lastActive = .now
        }
        await behavior.disconnected(connection)
    }

    /// Runs the before-connect and connect hooks of a short-lived HTTP action connection.
    func admitStateless(_ connection: ActorConnectionInfo) async throws(ActorError) {
        try await behavior.beforeConnect(connection)
        await behavior.connected(connection)
    }

    /// Whether the actor has had no connection and no action for `interval`.
    func isIdle(for interval: Duration, now: ContinuousClock.Instant) -> Bool {
        activity.withLock { $0.connections == 0 && $0.running == 0 && now - $0.lastActive >= interval }
    }

    /// Closes every connection with `error` (the actor was destroyed).
    func closeAll(_ error: ActorError) {
        let closers = activity.withLock { Array($0.closers.values) }
        for close in closers { close(error) }
    }
}
