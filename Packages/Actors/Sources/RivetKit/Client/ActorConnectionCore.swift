/// The protocol state of one ``ActorConnection``, apart from the transport it runs on: the
/// status, the actor's ids, the actions waiting for their answer (by id, with where each one
/// stands), the event names subscribed to, and the link on which the actor's `Init` made the
/// connection ready.
///
/// It is pure: each input (an action made, sent or answered, an `Init`, a link ready or closed,
/// an open that failed for good, a dispose) changes the state and returns the ``Effect``s the
/// shell performs, in order, outside its lock. ``ActorConnection`` is that shell; the
/// connection itself (opening, the wait for `Init`, retries, messages held while offline) is
/// the shared ``ReconnectingConnection``'s.
///
/// `Link` is what a ready transport is known by; `Waiter` is a caller waiting for an answer.
struct ActorConnectionCore<Link: Sendable, Waiter: Sendable>: Sendable {
    /// Where an action stands.
    enum Stage: Sendable, Equatable {
        /// Held here (``hold(_:frame:limited:)``), in order, until an attempt of it or of a
        /// later action has a ready link (``flush(through:generation:)``).
        case unsent
        /// Written on the link of this generation.
        case sent(UInt64)
    }

    /// An action waiting for its answer.
    struct Pending: Sendable {
        var frame: [UInt8]
        var stage: Stage
        /// The caller, once it waits (an answer may come first).
        var waiter: Waiter?
        /// The answer, when it came before the caller waited.
        var outcome: Result<JSONValue, ActorError>?
    }

    /// What the shell must do, in the order given.
    enum Effect: Sendable {
        /// Resume a caller with its action's answer.
        case answer(Waiter, Result<JSONValue, ActorError>)
        /// Write these frames to the link, in order.
        case write([[UInt8]], to: Link)
        /// Tell the error listeners of a connection-level error, dated by ``readies`` when it
        /// happened.
        case report(ActorError, readies: UInt64)
        /// Tell the status listeners of the status now current.
        case publishStatus
    }

    /// How many actions may be held here while the supervising connection is not running.
    let queueLimit: Int
    /// The status.
    private(set) var status: ActorConnStatus = .idle
    /// The actor's id, once an `Init` arrived.
    private(set) var actorId: String?
    /// This connection's id at the actor, once an `Init` arrived.
    private(set) var connectionId: String?
    /// The last connection-level error.
    private(set) var lastError: ActorError?
    /// The link on which the actor's `Init` made the connection ready, and its generation.
    private(set) var ready: (link: Link, generation: UInt64)?
    /// Whether a link was ready since the last start.
    private(set) var everReady = false
    /// How many times a link was made ready (the connection connected), ever: what an error
    /// reported is dated by, so that an observer who saw a later connection knows it is over.
    private(set) var readies: UInt64 = 0
    private var pending: [UInt64: Pending] = [:]
    private var unsent: [UInt64] = []
    private var subscriptions: [String: Int] = [:]

    /// Creates an idle core.
    init(queueLimit: Int) {
        self.queueLimit = max(queueLimit, 0)
    }

    /// How many actions wait for their answer.
    var pendingCount: Int { pending.count }

    /// The event names with at least one listener.
    var subscribedNames: [String] { subscriptions.filter { $0.value > 0 }.map(\.key).sorted() }

    // MARK: Lifecycle

    /// A start: from idle, the status becomes connecting.
    ///
    /// - Returns: `nil` when not idle (nothing to start); otherwise the effects.
    mutating func start() -> [Effect]? {
        guard status == .idle else { return nil }
        status = .connecting
        everReady = false
        return [.publishStatus]
    }

    /// The open failed for good before the first `Init` (not retried): every waiting action is
    /// rejected with `error`, which is reported once, and the status goes back to idle.
    mutating func openFailed(_ error: ActorError) -> [Effect] {
        var effects = rejectAll(error)
        status = .idle
        ready = nil
        lastError = error
        effects.append(.report(error, readies: readies))
        effects.append(.publishStatus)
        return effects
    }

    /// The owner disposed the connection: every waiting action is rejected with `error` and the
    /// status goes back to idle.
    mutating func dispose(_ error: ActorError) -> [Effect] {
        var effects = rejectAll(error)
        status = .idle
        ready = nil
        effects.append(.publishStatus)
        return effects
    }

    // MARK: Actions

    /// Action `id` is made, its frame written already, and held here until its attempt has a
    /// ready link (``flush(through:generation:)``); while not connected at most
    /// ``queueLimit`` are held.
    ///
    /// - Returns: The refusal, when `limited` and ``queueLimit`` actions are held already.
    mutating func hold(_ id: UInt64, frame: [UInt8], limited: Bool) -> ActorError? {
        if limited, unsent.count >= queueLimit {
            return ActorError(
                .clientNotConnected, "not connected, and \(queueLimit) actions wait already (maxQueuedActions)",
                metadata: ["limit": .integer(Int64(queueLimit))])
        }
        pending[id] = Pending(frame: frame, stage: .unsent)
        unsent.append(id)
        return nil
    }

    /// The caller of action `id` waits now (an action no longer here fails at once: it was
    /// given up).
    mutating func wait(_ id: UInt64, waiter: Waiter) -> [Effect] {
        guard let entry = pending[id] else {
            return [.answer(waiter, .failure(ActorError(.clientInternalError, "action \(id) no longer waits")))]
        }
        if let outcome = entry.outcome {
            pending[id] = nil
            return [.answer(waiter, outcome)]
        }
        pending[id]?.waiter = waiter
        return []
    }

    /// Action `id` is given up (its time limit passed, its caller was cancelled, an interceptor
    /// failed it): it is forgotten, and never sent when it was still held here; a later answer
    /// is dropped.
    ///
    /// - Returns: Its caller, if one waits.
    mutating func abandon(_ id: UInt64) -> Waiter? {
        unsent.removeAll { $0 == id }
        return pending.removeValue(forKey: id)?.waiter
    }

    /// Whether action `id` is here: held, sent, or settled with nobody waiting yet.
    func isPending(_ id: UInt64) -> Bool {
        pending[id] != nil
    }

    /// Whether action `id` is settled or gone: its outcome came while nobody waited for it, or
    /// it is not here.
    func isSettled(_ id: UInt64) -> Bool {
        guard let entry = pending[id] else { return true }
        return entry.outcome != nil
    }

    /// The failure action `id` got while nobody waited for it (refused, disposed, open
    /// failed), which ends it.
    mutating func takeFailure(_ id: UInt64) -> ActorError? {
        guard case .failure(let error)? = pending[id]?.outcome else { return nil }
        pending[id] = nil
        return error
    }

    /// Action `id` was answered.
    mutating func answered(_ id: UInt64, _ outcome: Result<JSONValue, ActorError>) -> [Effect] {
        settle(id, outcome)
    }

    // MARK: Events

    /// A listener of `name` came: the first one subscribes (at once when ready, else after the
    /// next `Init`).
    mutating func listenerAdded(_ name: String) -> [Effect] {
        subscriptions[name, default: 0] += 1
        guard subscriptions[name] == 1, let ready else { return [] }
        return [.write([RivetMessageCodec.frame(ClientMessage.subscriptionRequest(eventName: name, subscribe: true))], to: ready.link)]
    }

    /// A listener of `name` went: the last one unsubscribes (when ready).
    mutating func listenerRemoved(_ name: String) -> [Effect] {
        guard let count = subscriptions[name], count > 0 else { return [] }
        guard count == 1 else {
            subscriptions[name] = count - 1
            return []
        }
        subscriptions[name] = nil
        guard let ready else { return [] }
        return [.write([RivetMessageCodec.frame(ClientMessage.subscriptionRequest(eventName: name, subscribe: false))], to: ready.link)]
    }

    // MARK: Links

    /// The actor's `Init` arrived on the link of `generation`.
    ///
    /// - Returns: The frames to write on that link now, before it is ready: a subscription for
    ///   every event name listened to. The actions held here follow once it is ready
    ///   (``flush(through:generation:)``).
    mutating func initReceived(generation: UInt64, actorId: String, connectionId: String) -> [[UInt8]] {
        self.actorId = actorId
        self.connectionId = connectionId
        return subscribedNames.map { RivetMessageCodec.frame(ClientMessage.subscriptionRequest(eventName: $0, subscribe: true)) }
    }

    /// The attempt of held action `id` has the ready link of `generation`: the actions held
    /// here up to it, in the order they were held, are to be written on that link now (an
    /// earlier attempt may have written it already).
    ///
    /// - Returns: The frames to write, in order; `nil` when that link is no longer the ready
    ///   one (it was lost: nothing is written, the action waits for the next link).
    mutating func flush(through id: UInt64, generation: UInt64) -> [[UInt8]]? {
        guard let ready, ready.generation == generation else { return nil }
        guard let position = unsent.firstIndex(of: id) else { return [] }
        var frames: [[UInt8]] = []
        for held in unsent[...position] {
            guard let entry = pending[held] else { continue }
            frames.append(entry.frame)
            pending[held]?.stage = .sent(generation)
        }
        unsent.removeFirst(position + 1)
        return frames
    }

    /// The link of `generation` is ready: the messages the supervising connection held were
    /// written to it.
    mutating func linkReady(_ link: Link, generation: UInt64) -> [Effect] {
        var effects: [Effect] = []
        if let previous = ready, previous.generation != generation {
            // Its closing has not been seen yet: what was sent on it is lost all the same.
            effects += rejectSent(
                on: previous.generation, ActorError(.clientConnectionLost, "the connection was lost"))
        }
        ready = (link, generation)
        everReady = true
        readies += 1
        status = .connected
        effects.append(.publishStatus)
        return effects
    }

    /// The link of `generation` closed with `reason` (the peer's close reason, which may carry
    /// a structured error).
    mutating func linkClosed(generation: UInt64, reason: String?, description: String) -> [Effect] {
        let parsed = reason.flatMap { ActorCloseReason(parsing: $0)?.error() }
        let error = parsed ?? ActorError(.clientConnectionLost, "the connection was lost: \(description)")
        var effects = rejectSent(on: generation, error)
        if let ready, ready.generation == generation {
            self.ready = nil
            if status == .connected { status = .disconnected }
            lastError = error
            effects.append(.publishStatus)
            effects.append(.report(error, readies: readies))
        } else if everReady, let parsed {
            // A reconnect refused with a reason.
            lastError = parsed
            effects.append(.report(parsed, readies: readies))
        }
        return effects
    }

    /// An `Error` frame without an action: it concerns every action sent.
    mutating func connectionError(_ error: ActorError) -> [Effect] {
        var effects: [Effect] = []
        for (id, entry) in pending {
            if case .sent = entry.stage { effects += settle(id, .failure(error)) }
        }
        lastError = error
        effects.append(.report(error, readies: readies))
        return effects
    }

    // MARK: Steps

    private mutating func settle(_ id: UInt64, _ outcome: Result<JSONValue, ActorError>) -> [Effect] {
        guard let entry = pending[id], entry.outcome == nil else { return [] }
        guard let waiter = entry.waiter else {
            pending[id]?.outcome = outcome
            return []
        }
        pending[id] = nil
        return [.answer(waiter, outcome)]
    }

    private mutating func rejectSent(on generation: UInt64, _ error: ActorError) -> [Effect] {
        var effects: [Effect] = []
        for (id, entry) in pending where entry.stage == .sent(generation) {
            effects += settle(id, .failure(error))
        }
        return effects
    }

    private mutating func rejectAll(_ error: ActorError) -> [Effect] {
        var effects: [Effect] = []
        for id in pending.keys.sorted() { effects += settle(id, .failure(error)) }
        unsent = []
        return effects
    }
}
