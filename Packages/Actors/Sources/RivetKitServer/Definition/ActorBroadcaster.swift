import RivetKit
import Synchronization

/// Delivers an actor's events to its connections that subscribed to them. Shared by the
/// actor's instance and the contexts of its actions.
final class ActorBroadcaster: Sendable {
    /// Where one connection's event frames go.
    struct Subscriber: Sendable {
        var subscriptions: Set<String>
        /// The UTF-8 bytes of the names in `subscriptions`.
        var subscriptionBytes = 0
        var deliver: @Sendable (String) -> Void
    }

    /// How many distinct events one connection may subscribe to.
    let maxSubscriptions: Int
    /// How many bytes of event names one connection's subscriptions may hold.
    let maxSubscriptionBytes: Int
    /// The largest event frame sent, in bytes.
    let maxFrameSize: Int

    private let subscribers = Mutex<[String: Subscriber]>([:])

    init(maxSubscriptions: Int = .max, maxSubscriptionBytes: Int = .max, maxFrameSize: Int = .max) {
        self.maxSubscriptions = maxSubscriptions
        self.maxSubscriptionBytes = maxSubscriptionBytes
        self.maxFrameSize = maxFrameSize
    }

    /// Adds a connection with no subscriptions.
    func add(connectionId: String, deliver: @escaping @Sendable (String) -> Void) {
        subscribers.withLock { $0[connectionId] = Subscriber(subscriptions: [], deliver: deliver) }
    }

    /// Removes a connection.
    func remove(connectionId: String) {
        _ = subscribers.withLock { $0.removeValue(forKey: connectionId) }
    }

    /// Subscribes or unsubscribes a connection.
    ///
    /// - Throws: `connection.too_many_subscriptions` when a new subscription would pass
    ///   ``maxSubscriptions`` or ``maxSubscriptionBytes``; the connection's subscriptions stay
    ///   as they were.
    func update(connectionId: String, event: String, subscribe: Bool) throws(ActorError) {
        let size = event.utf8.count
        let refused = subscribers.withLock { subscribers -> Bool in
            guard var subscriber = subscribers[connectionId] else { return false }
            if subscribe {
                guard !subscriber.subscriptions.contains(event) else { return false }
                let (bytes, overflow) = subscriber.subscriptionBytes.addingReportingOverflow(size)
                guard subscriber.subscriptions.count < maxSubscriptions, !overflow, bytes <= maxSubscriptionBytes else {
                    return true
                }
                subscriber.subscriptions.insert(event)
                subscriber.subscriptionBytes = bytes
            } else {
                guard subscriber.subscriptions.remove(event) != nil else { return false }
                subscriber.subscriptionBytes = max(subscriber.subscriptionBytes - size, 0)
            }
            subscribers[connectionId] = subscriber
            return false
        }
        if refused {
            throw ActorError(
                .connectionTooManySubscriptions,
                "a connection may subscribe to \(maxSubscriptions) events holding \(maxSubscriptionBytes) bytes of names",
                metadata: ["maxSubscriptions": .integer(Int64(maxSubscriptions)), "maxSubscriptionBytes": .integer(Int64(maxSubscriptionBytes))])
        }
    }

    /// The number of connections.
    var count: Int { subscribers.withLock { $0.count } }

    /// Sends event `name` to the connections subscribed to it.
    ///
    /// - Throws: `message.outgoing_too_long` when the event's frame is over ``maxFrameSize``
    ///   (no connection could be sent it); nothing is sent.
    func broadcast(_ name: String, args: [JSONValue]) throws(ActorError) {
        let targets = subscribers.withLock { subscribers in
            subscribers.values.filter { $0.subscriptions.contains(name) }.map(\.deliver)
        }
        guard !targets.isEmpty else { return }
        // Encoded once, whatever the number of subscribers.
        let frame = RivetMessageCodec.encode(ServerMessage.event(name: name, args: args))
        guard frame.utf8.count <= maxFrameSize else {
            throw ActorBroadcaster.outgoingTooLong(frame.utf8.count, limit: maxFrameSize, what: "the event \(name)")
        }
        for deliver in targets {
            deliver(frame)
        }
    }
}

extension ActorBroadcaster {
    /// `message.outgoing_too_long`: a frame of `size` bytes over the connection's `limit`.
    static func outgoingTooLong(_ size: Int, limit: Int, what: String) -> ActorError {
        ActorError(
            .messageOutgoingTooLong,
            "\(what) is \(size) bytes, over the message limit of \(limit) bytes",
            metadata: ["size": .integer(Int64(size)), "limit": .integer(Int64(limit))])
    }
}
