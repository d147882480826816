import RpcWire
import Synchronization

/// The client's live queries: one upstream subscription per `(name, canonical params)`, each
/// with its local listeners, the last value and `seq` it holds, and chunks being joined.
final class SubscriptionRegistry: Sendable {
    enum Event: Sendable {
        case value(JSONValue)
        case failure(TinyvexError)
    }

    typealias Listener = @Sendable (Event) -> Void

    struct Upstream: Sendable {
        let subID: String
        let name: String
        let params: JSONValue
        var lastSeq: Int64?
        var lastValue: JSONValue?
        var listeners: [UInt64: Listener] = [:]
        var chunks: [String: [Int: String]] = [:]
        /// The generation of the link its `tinyvex/subscribe` was last sent on.
        var sentOn: UInt64?
    }

    /// What ``add(key:name:params:listener:)`` did.
    struct Added: Sendable {
        let listenerID: UInt64
        let subID: String
        /// Whether this listener opened the upstream subscription (so it must be sent).
        let isNew: Bool
        /// The value the upstream already holds, delivered to the new listener at once.
        let current: JSONValue?
    }

    private struct State {
        var upstreams: [String: Upstream] = [:]
        var keysBySubID: [String: String] = [:]
        var nextListenerID: UInt64 = 0
        var nextSubID: UInt64 = 0
    }

    private let state = Mutex(State())

    func add(key: String, name: String, params: JSONValue, listener: @escaping Listener) -> Added {
        state.withLock { state in
            state.nextListenerID += 1
            let listenerID = state.nextListenerID
            if var upstream = state.upstreams[key] {
                upstream.listeners[listenerID] = listener
                state.upstreams[key] = upstream
                return Added(listenerID: listenerID, subID: upstream.subID, isNew: false, current: upstream.lastValue)
            }
            state.nextSubID += 1
            let subID = "s\(state.nextSubID)"
            state.upstreams[key] = Upstream(subID: subID, name: name, params: params, listeners: [listenerID: listener])
            state.keysBySubID[subID] = key
            return Added(listenerID: listenerID, subID: subID, isNew: true, current: nil)
        }
    }

    /// Removes a listener; returns the `subId` to unsubscribe when it was the last one.
    func remove(key: String, listenerID: UInt64) -> String? {
        state.withLock { state in
            guard var upstream = state.upstreams[key], upstream.listeners.removeValue(forKey: listenerID) != nil else { return nil }
            if upstream.listeners.isEmpty {
                state.upstreams[key] = nil
                state.keysBySubID[upstream.subID] = nil
                return upstream.subID
            }
            state.upstreams[key] = upstream
            return nil
        }
    }

    /// Every live upstream subscription, with the `lastSeq` to resume from.
    var live: [Upstream] {
        state.withLock { Array($0.upstreams.values) }
    }

    /// Claims the upstream `subID` for sending on the link of `generation`: returns it (with the
    /// `lastSeq` to resume from) unless it is gone or was already sent on that link, so each
    /// live query is sent once per link whoever gets there first (the link's handshake, or the
    /// subscriber that opened it).
    func claim(subID: String, generation: UInt64) -> Upstream? {
        state.withLock { state in
            guard let key = state.keysBySubID[subID], var upstream = state.upstreams[key], upstream.sentOn != generation else { return nil }
            upstream.sentOn = generation
            state.upstreams[key] = upstream
            return upstream
        }
    }

    /// Claims every live upstream not yet sent on the link of `generation` (see
    /// ``claim(subID:generation:)``): what a new link's handshake resubscribes.
    func claimAll(generation: UInt64) -> [Upstream] {
        state.withLock { state in
            var claimed: [Upstream] = []
            for (key, var upstream) in state.upstreams where upstream.sentOn != generation {
                upstream.sentOn = generation
                state.upstreams[key] = upstream
                claimed.append(upstream)
            }
            return claimed
        }
    }

    /// The number of upstream subscriptions (one per distinct query).
    var upstreamCount: Int {
        state.withLock { $0.upstreams.count }
    }

    /// A `tinyvex/data`: delivered when its `seq` is newer than the last one held.
    func receive(subID: String, seq: Int64, value: JSONValue) {
        let listeners = state.withLock { state -> [Listener] in
            guard let key = state.keysBySubID[subID], var upstream = state.upstreams[key] else { return [] }
            if let lastSeq = upstream.lastSeq, seq <= lastSeq { return [] }
            upstream.lastSeq = seq
            upstream.lastValue = value
            state.upstreams[key] = upstream
            return Array(upstream.listeners.values)
        }
        for listener in listeners { listener(.value(value)) }
    }

    /// A `TVX004` notice: the server does not know the `seq` this client resumed from, and the
    /// value that follows starts the subscription's seqs again, so the next one is taken
    /// whatever its `seq`.
    func restartSeq(subID: String) {
        state.withLock { state in
            guard let key = state.keysBySubID[subID] else { return }
            state.upstreams[key]?.lastSeq = nil
        }
    }

    /// A `tinyvex/transitionChunk`: joined with its siblings, then delivered as one value.
    func receiveChunk(subID: String, seq: Int64, transitionID: String, part: Int, total: Int, chunk: String) {
        let joined = state.withLock { state -> String? in
            guard let key = state.keysBySubID[subID], var upstream = state.upstreams[key], total > 0, (1...total).contains(part) else { return nil }
            // The pieces of one transition arrive together: pieces of an older one that never
            // completed are dropped, so a subscription holds one partial value at most.
            if upstream.chunks[transitionID] == nil { upstream.chunks.removeAll() }
            var parts = upstream.chunks[transitionID] ?? [:]
            parts[part] = chunk
            if parts.count == total {
                upstream.chunks[transitionID] = nil
                state.upstreams[key] = upstream
                return (1...total).compactMap { parts[$0] }.joined()
            }
            upstream.chunks[transitionID] = parts
            state.upstreams[key] = upstream
            return nil
        }
        guard let joined else { return }
        guard let value = try? JSONParser().parse(joined) else {
            fail(subID: subID, .decoding("the chunks of \(transitionID) do not join to JSON"))
            return
        }
        receive(subID: subID, seq: seq, value: value)
    }

    /// Ends an upstream subscription with an error for every listener.
    func fail(subID: String, _ error: TinyvexError) {
        let listeners = state.withLock { state -> [Listener] in
            guard let key = state.keysBySubID.removeValue(forKey: subID), let upstream = state.upstreams.removeValue(forKey: key) else { return [] }
            return Array(upstream.listeners.values)
        }
        for listener in listeners { listener(.failure(error)) }
    }

    /// Ends every subscription (the client closed).
    func failAll(_ error: TinyvexError) {
        let listeners = state.withLock { state -> [Listener] in
            defer { state.upstreams = [:]; state.keysBySubID = [:] }
            return state.upstreams.values.flatMap { Array($0.listeners.values) }
        }
        for listener in listeners { listener(.failure(error)) }
    }
}
