import RivetKit
import Synchronization

/// Delivers an actor's events to its connections that subscribed to them. Shared by the
/// actor's instance and the contexts of its actions.
final class ActorBroadcaster: Sendable {
    /// Where one connection's event frames go.
    struct Subscriber: Sendable {
        var subscriptions: Set<String>
        var deliver: @Sendable (String) -> Void
    }

    private let subscribers = Mutex<[String: Subscriber]>([:])

    /// Adds a connection with no subscriptions.
    func add(connectionId: String, deliver: @escaping @Sendable (String) -> Void) {
        subscribers.withLock { $0[connectionId] = Subscriber(subscriptions: [], deliver: deliver) }
    }

    /// Removes a connection.
    func remove(connectionId: String) {
        _ = subscribers.withLock { $0.removeValue(forKey: connectionId) }
    }

    /// Subscribes or unsubscribes a connection.
    func update(connectionId: String, event: String, subscribe: Bool) {
        subscribers.withLock { subscribers in
            if subscribe {
                subscribers[connectionId]?.subscriptions.insert(event)
            } else {
                subscribers[connectionId]?.subscriptions.remove(event)
            }
        }
    }

    /// The number of connections.
    var count: Int { subscribers.withLock { $0.count } }

    /// Sends event `name` to the connections subscribed to it.
    func broadcast(_ name: String, args: [JSONValue]) {
        let targets = subscribers.withLock { subscribers in
            subscribers.values.filter { $0.subscriptions.contains(name) }.map(\.deliver)
        }
        guard !targets.isEmpty else { return }
        // Encoded once, whatever the number of subscribers.
        let frame = RivetMessageCodec.encode(ServerMessage.event(name: name, args: args))
        for deliver in targets {
            deliver(frame)
        }
    }
}
