import RpcWire

/// The client's live queries as a pure state machine: one upstream subscription per
/// `(name, canonical params)`, each with its local listeners, the last value and `seq` it holds,
/// the chunks being joined and the link it was last sent on.
///
/// It performs nothing itself. Each input (a listener added or removed, a value, a chunk, a
/// notice, a failure, a link claiming queries to send) changes the table and returns what the
/// shell (``SubscriptionRegistry``) must do: the ``Delivery`` of an event to listeners, which
/// the shell runs outside its lock. Every transition is therefore testable as plain values.
struct SubscriptionTable: Sendable {
    /// What a listener is told.
    enum Event: Sendable {
        /// The query's new value.
        case value(JSONValue)
        /// The subscription ended with this error.
        case failure(TinyvexError)
    }

    /// A local subscriber of a query.
    typealias Listener = @Sendable (Event) -> Void

    /// An event for some listeners: what the shell performs.
    struct Delivery: Sendable {
        /// Who is told.
        var listeners: [Listener]
        /// What they are told.
        var event: Event
    }

    /// One upstream subscription.
    struct Upstream: Sendable {
        /// The client-chosen `subId`.
        let subID: String
        /// The query's name.
        let name: String
        /// Its params, canonicalised.
        let params: JSONValue
        /// The newest `seq` held, which a resubscription resumes from.
        var lastSeq: Int64?
        /// The newest value the server sent (the base of the optimistic view).
        var lastValue: JSONValue?
        /// The value the listeners were last given (the server's, or with optimistic updates
        /// replayed over it), given at once to a new listener.
        var shown: JSONValue?
        /// A value received while a handshake resubscribes (see ``SubscriptionTable/pause()``),
        /// held back until it completes.
        var paused: (seq: Int64, value: JSONValue)?
        var listeners: [UInt64: Listener] = [:]
        /// The pieces of the transition being joined, by transition id and part.
        var chunks: [String: [Int: String]] = [:]
        /// The generation of the link its `tinyvex/subscribe` was last sent on.
        var sentOn: UInt64?
    }

    /// What ``add(key:name:params:listener:)`` did.
    struct Added: Sendable {
        /// The new listener's id, for ``remove(key:listenerID:)``.
        let listenerID: UInt64
        /// The upstream's `subId`.
        let subID: String
        /// Whether this listener opened the upstream subscription (so it must be sent).
        let isNew: Bool
        /// The value the upstream already holds, delivered to the new listener at once.
        let current: JSONValue?
    }

    private var upstreams: [String: Upstream] = [:]
    private var keysBySubID: [String: String] = [:]
    /// The version of the newest `tinyvex/transition` applied.
    private(set) var version: Int64?
    /// The pieces of the whole `tinyvex/transition` being joined: one at a time.
    private var transitionChunks: (id: String, parts: [Int: String])?
    /// The optimistic updates of the mutations in flight.
    private var layers = OptimisticLayers()
    /// Whether values are held back while a handshake resubscribes the queries.
    private var pausing = false
    /// While pausing: the newest transition version and the `requestId`s transitions named.
    private var pausedVersion: Int64?
    private var pausedRequestIDs: [String] = []
    private var nextListenerID: UInt64 = 0
    private var nextSubID: UInt64 = 0

    /// Creates an empty table.
    init() {}

    /// Every live upstream subscription.
    var live: [Upstream] { Array(upstreams.values) }

    /// The number of upstream subscriptions (one per distinct query).
    var upstreamCount: Int { upstreams.count }

    /// Adds a listener of the query `key`, opening its upstream subscription when it is the
    /// first one.
    mutating func add(key: String, name: String, params: JSONValue, listener: @escaping Listener) -> Added {
        nextListenerID += 1
        let listenerID = nextListenerID
        if var upstream = upstreams[key] {
            upstream.listeners[listenerID] = listener
            upstreams[key] = upstream
            return Added(listenerID: listenerID, subID: upstream.subID, isNew: false, current: upstream.shown)
        }
        nextSubID += 1
        let subID = "s\(nextSubID)"
        upstreams[key] = Upstream(subID: subID, name: name, params: params, listeners: [listenerID: listener])
        keysBySubID[subID] = key
        return Added(listenerID: listenerID, subID: subID, isNew: true, current: nil)
    }

    /// Removes a listener; returns the `subId` to unsubscribe when it was the last one.
    mutating func remove(key: String, listenerID: UInt64) -> String? {
        guard var upstream = upstreams[key], upstream.listeners.removeValue(forKey: listenerID) != nil else { return nil }
        if upstream.listeners.isEmpty {
            upstreams[key] = nil
            keysBySubID[upstream.subID] = nil
            return upstream.subID
        }
        upstreams[key] = upstream
        return nil
    }

    /// Claims the upstream `subID` for sending on the link of `generation`: returns it (with
    /// the `lastSeq` to resume from) unless it is gone or was already sent on that link, so each
    /// live query is sent once per link whoever gets there first (the link's handshake, or the
    /// subscriber that opened it).
    mutating func claim(subID: String, generation: UInt64) -> Upstream? {
        guard let key = keysBySubID[subID], var upstream = upstreams[key], upstream.sentOn != generation else { return nil }
        upstream.sentOn = generation
        upstreams[key] = upstream
        return upstream
    }

    /// Claims every live upstream not yet sent on the link of `generation` (see
    /// ``claim(subID:generation:)``): what a new link's handshake resubscribes.
    mutating func claimAll(generation: UInt64) -> [Upstream] {
        var claimed: [Upstream] = []
        for (key, var upstream) in upstreams where upstream.sentOn != generation {
            upstream.sentOn = generation
            upstreams[key] = upstream
            claimed.append(upstream)
        }
        return claimed
    }

    /// A `tinyvex/data`: delivered when its `seq` is newer than the last one held (with the
    /// optimistic updates pending replayed over it, which may change what other queries show).
    mutating func receive(subID: String, seq: Int64, value: JSONValue) -> [Delivery] {
        guard let key = hold(subID: subID, seq: seq, value: value) else { return [] }
        return layers.isEmpty ? show(key) : showView()
    }

    /// Holds the server's `value` when its `seq` is newer; returns the query's key then.
    /// While pausing it is held back instead, and `nil` is returned.
    private mutating func hold(subID: String, seq: Int64, value: JSONValue) -> String? {
        guard let key = keysBySubID[subID], var upstream = upstreams[key] else { return nil }
        if let newest = upstream.paused?.seq ?? upstream.lastSeq, seq <= newest { return nil }
        if pausing {
            upstream.paused = (seq, value)
            upstreams[key] = upstream
            return nil
        }
        upstream.lastSeq = seq
        upstream.lastValue = value
        upstreams[key] = upstream
        return key
    }

    /// A handshake begins resubscribing the queries: the values it brings (one transition per
    /// subscription) are held back until ``resume()``, so that the listeners go from the state
    /// before the reconnect to the state after it in one step, never through a mix of the two.
    mutating func pause() {
        pausing = true
    }

    /// The handshake completed: every value held back is taken and shown at once.
    mutating func resume() -> [Delivery] {
        guard pausing else { return [] }
        pausing = false
        var keys: [String] = []
        for (key, var upstream) in upstreams {
            guard let (seq, value) = upstream.paused else { continue }
            upstream.paused = nil
            upstream.lastSeq = seq
            upstream.lastValue = value
            upstreams[key] = upstream
            keys.append(key)
        }
        if let pausedVersion { version = max(version ?? pausedVersion, pausedVersion) }
        pausedVersion = nil
        let dropped = layers.remove(pausedRequestIDs)
        pausedRequestIDs = []
        if layers.isEmpty && !dropped {
            return keys.flatMap { show($0) }
        }
        return showView()
    }

    /// The handshake failed: the values held back are dropped (the next handshake resubscribes
    /// from the `lastSeq`s they did not advance, so they come again).
    mutating func discardPaused() {
        pausing = false
        pausedVersion = nil
        pausedRequestIDs = []
        for (key, upstream) in upstreams where upstream.paused != nil {
            upstreams[key]?.paused = nil
        }
    }

    /// Shows the server's value of `key` (no optimistic update is pending).
    private mutating func show(_ key: String) -> [Delivery] {
        guard var upstream = upstreams[key], let value = upstream.lastValue else { return [] }
        upstream.shown = value
        upstreams[key] = upstream
        return [Delivery(listeners: Array(upstream.listeners.values), event: .value(value))]
    }

    /// Replays the pending optimistic updates over the server's values and delivers every
    /// query whose shown value changes.
    private mutating func showView() -> [Delivery] {
        var base: [String: OptimisticLocalStore.Entry] = [:]
        for (key, upstream) in upstreams {
            base[key] = OptimisticLocalStore.Entry(name: upstream.name, params: upstream.params, value: upstream.lastValue)
        }
        let view = layers.view(over: base)
        var deliveries: [Delivery] = []
        for (key, var upstream) in upstreams {
            guard let shown = view[key]?.value ?? nil, shown != upstream.shown else { continue }
            upstream.shown = shown
            upstreams[key] = upstream
            deliveries.append(Delivery(listeners: Array(upstream.listeners.values), event: .value(shown)))
        }
        return deliveries
    }

    /// A mutation's optimistic update (under `id`, its `requestId`): shown at once, replayed
    /// after those already pending.
    mutating func addOptimistic(id: String, _ update: @escaping OptimisticLayers.Update) -> [Delivery] {
        layers.add(id: id, update)
        return showView()
    }

    /// The mutations `ids` are done (their writes are in the server's values, or they failed):
    /// their updates are dropped and what the queries show is computed again.
    mutating func dropOptimistic(_ ids: [String]) -> [Delivery] {
        guard layers.remove(ids) else { return [] }
        return showView()
    }

    /// The ids of the optimistic updates pending, in order.
    var optimisticIDs: [String] { layers.ids }

    /// A `TVX004` notice: the server does not know the `seq` this client resumed from, and the
    /// value that follows starts the subscription's seqs again, so the next one is taken
    /// whatever its `seq`.
    mutating func restartSeq(subID: String) {
        guard let key = keysBySubID[subID] else { return }
        upstreams[key]?.lastSeq = nil
        upstreams[key]?.paused = nil
    }

    /// A `tinyvex/transitionChunk`: joined with its siblings, then delivered as one value (or,
    /// when the pieces do not join to JSON, as a failure that ends the subscription).
    mutating func receiveChunk(subID: String, seq: Int64, transitionID: String, part: Int, total: Int, chunk: String) -> [Delivery] {
        guard let key = keysBySubID[subID], var upstream = upstreams[key], total > 0, (1...total).contains(part) else { return [] }
        // The pieces of one transition arrive together: pieces of an older one that never
        // completed are dropped, so a subscription holds one partial value at most.
        if upstream.chunks[transitionID] == nil { upstream.chunks.removeAll() }
        var parts = upstream.chunks[transitionID] ?? [:]
        parts[part] = chunk
        guard parts.count == total else {
            upstream.chunks[transitionID] = parts
            upstreams[key] = upstream
            return []
        }
        upstream.chunks[transitionID] = nil
        upstreams[key] = upstream
        let joined = (1...total).compactMap { parts[$0] }.joined()
        guard let value = try? JSONParser().parse(joined) else {
            return fail(subID: subID, .decoding("the chunks of \(transitionID) do not join to JSON")).map { [$0] } ?? []
        }
        return receive(subID: subID, seq: seq, value: value)
    }

    /// A `tinyvex/transition` (its params): every change applied before anything is delivered,
    /// so that a listener that reads another query's value sees it at the same version. Each
    /// change follows the rules of a `tinyvex/data` for its subscription (a `seq` not newer than
    /// the one held is ignored).
    mutating func receiveTransition(_ params: JSONObject) -> [Delivery] {
        guard let version = params["version"]?.int64Value, case .array(let changes)? = params["changes"] else { return [] }
        var held: [String] = []
        for change in changes {
            guard case .string(let subID)? = change["subId"], let seq = change["seq"]?.int64Value else { continue }
            if let key = hold(subID: subID, seq: seq, value: change["value"] ?? .null) { held.append(key) }
        }
        let requestIDs: [String] = if case .array(let ids)? = params["requestIds"] { ids.compactMap(\.stringValue) } else { [] }
        if pausing {
            pausedVersion = max(pausedVersion ?? version, version)
            pausedRequestIDs += requestIDs
            return []
        }
        self.version = max(self.version ?? version, version)
        // The mutations this transition is the first to show: their optimistic updates give way
        // to the server's values in the same step.
        let dropped = layers.remove(requestIDs)
        if layers.isEmpty && !dropped {
            return held.flatMap { show($0) }
        }
        return showView()
    }

    /// A `tinyvex/transitionChunk` without a `subId`: a piece of a whole transition's params,
    /// joined with its siblings and then applied as one (pieces that do not join to a JSON
    /// object are dropped; the subscriptions keep their values).
    mutating func receiveTransitionChunk(transitionID: String, part: Int, total: Int, chunk: String) -> [Delivery] {
        guard total > 0, (1...total).contains(part) else { return [] }
        // The pieces of one transition arrive together: an older one that never completed is
        // dropped.
        var parts = transitionChunks?.id == transitionID ? transitionChunks?.parts ?? [:] : [:]
        parts[part] = chunk
        guard parts.count == total else {
            transitionChunks = (transitionID, parts)
            return []
        }
        transitionChunks = nil
        let joined = (1...total).compactMap { parts[$0] }.joined()
        guard case .object(let params)? = try? JSONParser().parse(joined) else { return [] }
        return receiveTransition(params)
    }

    /// Every upstream query with the value it holds.
    var values: [(name: String, params: JSONValue, value: JSONValue?)] {
        upstreams.values.map { ($0.name, $0.params, $0.lastValue) }
    }

    /// Ends an upstream subscription with an error for every listener.
    mutating func fail(subID: String, _ error: TinyvexError) -> Delivery? {
        guard let key = keysBySubID.removeValue(forKey: subID), let upstream = upstreams.removeValue(forKey: key) else { return nil }
        return Delivery(listeners: Array(upstream.listeners.values), event: .failure(error))
    }

    /// Ends every subscription (the client closed).
    mutating func failAll(_ error: TinyvexError) -> Delivery {
        defer {
            upstreams = [:]
            keysBySubID = [:]
        }
        return Delivery(listeners: upstreams.values.flatMap { Array($0.listeners.values) }, event: .failure(error))
    }
}
