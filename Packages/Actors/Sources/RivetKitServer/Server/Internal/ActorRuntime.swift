import RivetKit
import RpcTransport
import Synchronization

/// What the contexts of one awake actor instance share: its broadcaster, its vars, its live
/// connections, its background work, and the way to ask for its destruction.
final class ActorRuntime: Sendable {
    let actorId: String
    let name: String
    let key: [String]
    let broadcaster: ActorBroadcaster
    /// Background work started by `keepAwake`/`runInBackground`: awaited (within the grace period)
    /// when the instance stops, cancelled after.
    let tasks = OwnedTasks<UInt64>()
    private let vars = Mutex<(any Sendable)?>(nil)
    /// The live connections by id, each with the order it joined in.
    private let live = Mutex<(next: UInt64, byId: [String: (order: UInt64, connection: ActorConn)])>((0, [:]))
    private let hooks = Mutex<Hooks>(Hooks())

    /// What the instance gives its runtime once it exists.
    struct Hooks {
        var destroy: (@Sendable () -> Void)?
        var enter: (@Sendable () -> Bool)?
        var leave: (@Sendable () -> Void)?
        /// The server's scheduler, behind `context.schedule`.
        var scheduler: ActorScheduler?
        /// The client of the actor's namespace, behind `context.client`.
        var client: (@Sendable () -> RivetKitClient)?
    }

    init(actorId: String, name: String, key: [String], broadcaster: ActorBroadcaster) {
        self.actorId = actorId
        self.name = name
        self.key = key
        self.broadcaster = broadcaster
    }

    func install(_ hooks: Hooks) {
        self.hooks.withLock { $0 = hooks }
    }

    /// The server's scheduler; `nil` before the instance installed its hooks.
    var scheduler: ActorScheduler? {
        hooks.withLock { $0.scheduler }
    }

    /// The client reaching the actors of this one's server and namespace; before the instance
    /// installed its hooks, one whose requests fail.
    var client: RivetKitClient {
        if let make = hooks.withLock({ $0.client }) { return make() }
        return RivetKitClient(
            ClientConfig(endpoint: "http://in-process", namespace: "default", disableMetadataLookup: true),
            transports: ClientTransports(
                openSocket: { _, _ in throw TransportError(code: .connectFailed, message: "the actor is not running") },
                makeHTTPClient: { (_: String, _: [String: String]) throws(TransportError) -> any ActorHTTPClient in
                    throw TransportError(code: .connectFailed, message: "the actor is not running")
                }))
    }

    /// The vars `createVars` made; `nil` before.
    var currentVars: (any Sendable)? {
        get { vars.withLock { $0 } }
        set { vars.withLock { $0 = newValue } }
    }

    /// The live connections, oldest first.
    var connections: [ActorConn] {
        live.withLock { $0.byId.values.sorted { $0.order < $1.order }.map(\.connection) }
    }

    func add(_ connection: ActorConn) {
        live.withLock { live in
            live.byId[connection.id] = (live.next, connection)
            live.next &+= 1
        }
    }

    func remove(id: String) {
        _ = live.withLock { $0.byId.removeValue(forKey: id) }
    }

    /// Asks for the actor to be destroyed once the work running now is done.
    func requestDestroy() {
        hooks.withLock { $0.destroy }?()
    }

    /// Runs `body` in the background, keeping the instance awake until it ends. Once the
    /// instance is stopping it runs as `runInBackground` work.
    func keepAwake(_ body: @escaping @Sendable () async -> Void) {
        let (enter, leave) = hooks.withLock { ($0.enter, $0.leave) }
        guard enter?() == true else {
            runInBackground(body)
            return
        }
        let spawned = tasks.spawn {
            await body()
            leave?()
        }
        if !spawned { leave?() }
    }

    /// Runs `body` in the background without keeping the instance awake; sleep and destroy
    /// wait for it, within the grace period.
    func runInBackground(_ body: @escaping @Sendable () async -> Void) {
        tasks.spawn(nil, body)
    }
}
