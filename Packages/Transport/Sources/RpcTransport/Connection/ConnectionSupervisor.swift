/// The state machine of one supervised connection: when to open a transport, when it is ready,
/// when to wait and try again, what to do with work that arrives while it is not ready.
///
/// It is pure: it performs nothing itself. Each input (a connect requested, a link up, its
/// handshake done, a link lost, a timer fired, a close requested, a message or a caller that
/// needs the link) changes the state and returns the ``Action``s the shell must perform, in
/// order. ``ReconnectingConnection`` is that shell: it keeps the machine behind a lock, runs the
/// transport factory, the protocol's ready handshake, the liveness probe and the timers as tasks
/// it owns, and feeds their outcomes back in. Nothing here reads a clock or touches a socket, so
/// every (state, input) pair is tested as a table.
///
/// The protocol above plugs in twice: it may have a ready handshake (``Settings/hasHandshake``:
/// the connection is `connected` only once it is done, and work held offline is released only
/// then), and it decides, per failure, whether to try again (``RetryDecision``).
///
/// `Link` is what an open transport is known by (the shell's link; an integer in tests);
/// `Waiter` is a caller waiting for the link (a continuation; a name in tests).
package struct ConnectionSupervisor<Link: Sendable, Waiter: Sendable>: Sendable {
    /// The settings the machine decides with.
    package struct Settings: Sendable {
        /// Attempts and backoff after a failure.
        package var policy: ReconnectPolicy
        /// How long the factory may take to open one transport.
        package var connectTimeout: Duration
        /// How long the ready handshake may take once the transport is open.
        package var handshakeTimeout: Duration
        /// Whether the protocol has a ready handshake.
        package var hasHandshake: Bool
        /// How many messages plus callers waiting for the link are held while not ready (the
        /// callers of start and of an explicit reconnect do not count); `nil` holds none.
        package var offlineQueueLimit: Int?

        /// Creates settings.
        package init(
            policy: ReconnectPolicy, connectTimeout: Duration, handshakeTimeout: Duration, hasHandshake: Bool,
            offlineQueueLimit: Int?
        ) {
            self.policy = policy
            self.connectTimeout = connectTimeout
            self.handshakeTimeout = handshakeTimeout
            self.hasHandshake = hasHandshake
            self.offlineQueueLimit = offlineQueueLimit
        }
    }

    /// Where the connection is.
    package enum Phase: Sendable {
        /// Not started, or stopped by a ``RetryDecision/goIdle`` decision.
        case idle
        /// The factory is opening a transport in the attempt known by `id`; `attempt` is 0 for
        /// the first attempt of a start, then the number of the retry.
        case opening(id: UInt64, attempt: Int)
        /// The transport is open and the protocol's ready handshake runs on it.
        case handshaking(Link, generation: UInt64, attempt: Int)
        /// Ready: messages and callers go straight to the link.
        case connected(Link, generation: UInt64)
        /// Waiting for the backoff before retry `attempt`.
        case backingOff(attempt: Int)
        /// Stopped after a failure (out of attempts, or the protocol's decision); a start or an
        /// explicit reconnect begins again.
        case gaveUp
        /// Closed by its owner; a start begins again.
        case closed
    }

    /// A timer the shell runs; when it fires, the shell calls ``timerFired(_:)`` with it.
    package enum Timer: Hashable, Sendable {
        /// The backoff before the next attempt, scheduled after the attempt with this id.
        case backoff(after: UInt64)
        /// The limit on the attempt with this id.
        case open(UInt64)
        /// The limit on the ready handshake of `generation`.
        case handshake(UInt64)
    }

    /// Why a link is being closed by the shell.
    package enum CloseReason: Sendable {
        /// Its owner closed the connection.
        case closed
        /// An explicit reconnect replaces it.
        case reconnecting
        /// Its ready handshake failed or timed out.
        case failed(TransportError)
    }

    /// What the shell must do, in the order given.
    package enum Action: Sendable {
        /// Open a transport with the factory for the attempt `id`; report
        /// ``linkOpened(attempt:makeLink:)`` or ``openFailed(attempt:error:decide:)``.
        case open(attempt: UInt64)
        /// Stop the factory of attempt `id` (its timer fired or the connection closed).
        case cancelOpen(attempt: UInt64)
        /// Hand the new link to the protocol (it starts reading) and watch it for loss.
        case attach(Link, generation: UInt64)
        /// Run the protocol's ready handshake on the link; report ``handshakeFinished(generation:)``
        /// or ``linkFailed(generation:error:decide:)``.
        case handshake(Link, generation: UInt64)
        /// Stop the ready handshake of `generation`.
        case cancelHandshake(generation: UInt64)
        /// Start the liveness probe on the ready link.
        case startLiveness(Link, generation: UInt64)
        /// Start `timer`, to fire after `delay`.
        case startTimer(Timer, delay: Duration)
        /// Stop `timer`.
        case cancelTimer(Timer)
        /// Write the messages held offline to the ready link, in order.
        case flush([TransportMessage], to: Link)
        /// The link is ready (after the messages held offline were written, before waiting
        /// callers resume): tell the protocol.
        case ready(Link, generation: UInt64)
        /// Close the link, stopping its watch and liveness probe first.
        case closeLink(Link, generation: UInt64, reason: CloseReason)
        /// Tell the loss handlers that the link of `generation` is gone.
        case lost(generation: UInt64)
        /// Publish a new connection state.
        case publish(ConnectionState)
        /// Resume waiting callers with the ready link.
        case resume([Waiter], link: Link, generation: UInt64)
        /// Fail waiting callers.
        case fail([Waiter], TransportError)
        /// Finish the state streams (the connection is closed).
        case finishObservers
    }

    /// What ``send(_:)`` decided.
    package enum SendDecision: Sendable {
        /// Write it to this ready link.
        case write(Link)
        /// Held until the next ready link.
        case held
    }

    /// What ``waitForLink(_:)`` decided.
    package enum WaitDecision: Sendable {
        /// The link is ready.
        case ready(Link, generation: UInt64)
        /// The waiter is held with this id (for ``cancelWaiter(_:)``); a later action resumes
        /// or fails it.
        case waiting(UInt64)
    }

    /// Who waits for a link, which decides how a failure reaches it.
    private enum WaiterKind: Sendable {
        /// A caller of start: fails with the failure itself when the connection stops trying.
        case starter
        /// A caller of an explicit reconnect: fails with the first failure of its attempt.
        case reconnect
        /// Work held offline: fails with `notConnected` (the failure as its cause) when the
        /// connection stops trying.
        case caller
    }

    /// A caller waiting for a link.
    private struct Held: Sendable {
        var id: UInt64
        var waiter: Waiter
        var kind: WaiterKind
    }

    /// Makes the retry decision for a failure (the protocol's hook, or the default).
    package typealias Decide = (TransportError, ConnectionFailureContext) -> RetryDecision

    /// The settings.
    package let settings: Settings
    /// Where the connection is.
    package private(set) var phase: Phase = .idle
    /// The generation of the newest link (0 before the first): one more for each transport the
    /// factory opened and the machine took.
    package private(set) var generation: UInt64 = 0
    /// The id of the newest attempt to open a transport.
    package private(set) var attemptID: UInt64 = 0
    /// Whether a link became ready since the last start.
    package private(set) var everConnected = false
    /// The last state published.
    package private(set) var published: ConnectionState = .connecting
    private var lastError: (any Error)?
    private var outbox: [TransportMessage] = []
    private var waiters: [Held] = []
    private var nextWaiterID: UInt64 = 0
    /// An explicit reconnect whose first attempt is under way: whether it goes on with the
    /// backoff when that attempt fails.
    private var explicitReconnect: Bool?

    /// Creates an idle machine.
    package init(settings: Settings) {
        self.settings = settings
    }

    // MARK: Reading

    /// The ready link and its generation, if any.
    package var readyLink: (link: Link, generation: UInt64)? {
        if case .connected(let link, let generation) = phase { return (link, generation) }
        return nil
    }

    /// The open link (handshaking or ready), if any.
    package var openLink: (link: Link, generation: UInt64)? {
        switch phase {
        case .handshaking(let link, let generation, _), .connected(let link, let generation): (link, generation)
        default: nil
        }
    }

    /// Whether the connection is started and still trying.
    package var isRunning: Bool {
        switch phase {
        case .opening, .handshaking, .connected, .backingOff: true
        case .idle, .gaveUp, .closed: false
        }
    }

    /// How many messages are held offline.
    package var heldMessages: Int { outbox.count }

    /// How many callers wait for the link.
    package var waitingCallers: Int { waiters.count }

    /// What counts toward the offline queue limit: the messages held and the callers (not the
    /// starters) waiting for the link.
    package var offlineQueueDepth: Int { outbox.count + waiters.count(where: { $0.kind == .caller }) }

    /// What the protocol's retry decision is told about a failure in the current phase.
    package func failureContext(closure: TransportClosure? = nil) -> ConnectionFailureContext {
        let stage: ConnectionFailureContext.Stage
        let attempt: Int
        switch phase {
        case .opening(_, let current):
            (stage, attempt) = (.opening, current)
        case .handshaking(_, _, let current):
            (stage, attempt) = (.handshaking, current)
        default:
            (stage, attempt) = (.connected, 0)
        }
        return ConnectionFailureContext(
            stage: stage, attempt: attempt, everConnected: everConnected || explicitReconnect == true, closure: closure)
    }

    // MARK: Inputs from the owner

    /// A connect is requested (``ReconnectingConnection/start()``) by `waiter`.
    ///
    /// - Returns: `.ready` when connected; otherwise the waiter is held (it is resumed when the
    ///   link is ready, failed when the attempt fails for good) and the actions start the
    ///   connection when it was not running.
    package mutating func start(_ waiter: Waiter) -> (WaitDecision, [Action]) {
        switch phase {
        case .connected(let link, let generation):
            return (.ready(link, generation: generation), [])
        case .opening, .handshaking, .backingOff:
            return (.waiting(hold(waiter, .starter)), [])
        case .idle, .gaveUp, .closed:
            everConnected = false
            lastError = nil
            explicitReconnect = nil
            let id = hold(waiter, .starter)
            var actions = publish(.connecting)
            actions += beginAttempt(0)
            return (.waiting(id), actions)
        }
    }

    /// An explicit reconnect is requested by `waiter`: the open link (if any) is closed and a new
    /// one opened at once. `keepTrying` goes on with the backoff when the new one cannot be
    /// opened; otherwise that failure stops the connection.
    ///
    /// - Returns: `nil` when the connection is not running (idle or closed); otherwise the waiter's
    ///   id (it is resumed with the new link, or failed with the first failure) and the actions.
    package mutating func reconnect(_ waiter: Waiter, keepTrying: Bool) -> (UInt64, [Action])? {
        switch phase {
        case .idle, .closed:
            return nil
        case .opening where explicitReconnect != nil, .handshaking where explicitReconnect != nil:
            return (hold(waiter, .reconnect), [])
        default:
            break
        }
        var actions = stopCurrentAttempt(reason: .reconnecting)
        explicitReconnect = keepTrying
        let id = hold(waiter, .reconnect)
        actions += publish(.reconnecting(attempt: 1))
        actions += beginAttempt(1)
        return (id, actions)
    }

    /// The owner closes the connection: everything stops, waiting callers and held messages
    /// fail with `closed`, `disconnected` is published and the state streams finish.
    package mutating func close() -> [Action] {
        if case .closed = phase { return [] }
        var actions = stopCurrentAttempt(reason: .closed)
        phase = .closed
        explicitReconnect = nil
        actions += failAll(TransportError(code: .closed, message: "the connection was closed"))
        actions += publish(.disconnected(nil))
        actions.append(.finishObservers)
        return actions
    }

    /// A message to send: written to the ready link, or held until the next one.
    ///
    /// - Throws: ``TransportError`` `notConnected` when the connection is not trying (or holds
    ///   nothing offline), `offlineQueueFull` when the offline limit is reached.
    package mutating func send(_ message: TransportMessage) throws(TransportError) -> SendDecision {
        if case .connected(let link, _) = phase { return .write(link) }
        try admitOffline()
        outbox.append(message)
        return .held
    }

    /// A caller needs the ready link.
    ///
    /// - Throws: ``TransportError`` as ``send(_:)``.
    package mutating func waitForLink(_ waiter: Waiter) throws(TransportError) -> WaitDecision {
        if case .connected(let link, let generation) = phase { return .ready(link, generation: generation) }
        try admitOffline()
        return .waiting(hold(waiter, .caller))
    }

    /// A waiting caller stopped waiting (its task was cancelled); returns its waiter when it
    /// was still held.
    package mutating func cancelWaiter(_ id: UInt64) -> Waiter? {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return nil }
        return waiters.remove(at: index).waiter
    }

    // MARK: Inputs from the shell's tasks

    /// The factory opened a transport in attempt `id`; `makeLink` makes its link with the
    /// generation the machine gives it (0 for one that came too late and is closed at once).
    package mutating func linkOpened(attempt id: UInt64, makeLink: (UInt64) -> Link) -> [Action] {
        guard case .opening(let current, let attempt) = phase, current == id else {
            // Opened too late (timed out, closed, replaced): nobody wants it.
            return [.closeLink(makeLink(0), generation: 0, reason: .closed)]
        }
        generation += 1
        let link = makeLink(generation)
        var actions: [Action] = [.cancelTimer(.open(id)), .attach(link, generation: generation)]
        if settings.hasHandshake {
            phase = .handshaking(link, generation: generation, attempt: attempt)
            actions.append(.handshake(link, generation: generation))
            actions.append(.startTimer(.handshake(generation), delay: settings.handshakeTimeout))
            return actions
        }
        return actions + becomeReady(link, generation: generation)
    }

    /// The ready handshake of `generation` finished.
    package mutating func handshakeFinished(generation: UInt64) -> [Action] {
        guard case .handshaking(let link, let current, _) = phase, current == generation else { return [] }
        return [.cancelTimer(.handshake(generation))] + becomeReady(link, generation: generation)
    }

    /// The factory failed in attempt `id` (it threw). `decide` makes the retry decision (the
    /// protocol's hook, or the default); it is asked only for a failure that is current.
    package mutating func openFailed(attempt id: UInt64, error: TransportError, decide: Decide) -> [Action] {
        guard case .opening(let current, let attempt) = phase, current == id else { return [] }
        return [.cancelTimer(.open(id))] + afterFailure(error, nextAttempt: attempt + 1, closure: nil, decide: decide)
    }

    /// The link of `generation` failed: its handshake failed, or it was lost (`closure` says how
    /// it closed). `decide` as for ``openFailed(attempt:error:decide:)``.
    package mutating func linkFailed(
        generation: UInt64, error: TransportError, closure: TransportClosure? = nil, decide: Decide
    ) -> [Action] {
        var actions: [Action]
        var nextAttempt: Int
        switch phase {
        case .handshaking(let link, let current, let attempt) where current == generation:
            actions = [
                .cancelTimer(.handshake(generation)), .cancelHandshake(generation: generation),
                .closeLink(link, generation: generation, reason: .failed(error)), .lost(generation: generation),
            ]
            nextAttempt = attempt + 1
        case .connected(let link, let current) where current == generation:
            actions = [.closeLink(link, generation: generation, reason: .failed(error)), .lost(generation: generation)]
            nextAttempt = 1
        default:
            return []  // A link that is no longer current.
        }
        return actions + afterFailure(error, nextAttempt: nextAttempt, closure: closure, decide: decide)
    }

    /// After a current failure: retry after the backoff, give up, or go idle.
    private mutating func afterFailure(
        _ error: TransportError, nextAttempt: Int, closure: TransportClosure?, decide: Decide
    ) -> [Action] {
        var actions: [Action] = []
        let decision = decide(error, failureContext(closure: closure))
        lastError = error
        // The callers of an explicit reconnect learn of the first failure at once.
        let firstFailures = takeWaiters { $0.kind == .reconnect }
        if !firstFailures.isEmpty { actions.append(.fail(firstFailures, error)) }
        let keepTrying = explicitReconnect ?? true
        explicitReconnect = nil
        switch keepTrying ? decision : .giveUp {
        case .retry where settings.policy.allows(attempt: nextAttempt):
            phase = .backingOff(attempt: nextAttempt)
            if everConnected || published.isReconnecting { actions += publish(.reconnecting(attempt: nextAttempt)) }
            actions.append(.startTimer(.backoff(after: attemptID), delay: settings.policy.backoff.delay(forAttempt: nextAttempt)))
        case .retry, .giveUp:
            phase = .gaveUp
            actions += stop(after: error)
        case .goIdle:
            phase = .idle
            actions += stop(after: error)
        }
        return actions
    }

    /// `timer` fired; `decide` makes the retry decision when it ends an attempt.
    package mutating func timerFired(_ timer: Timer, decide: Decide) -> [Action] {
        switch (timer, phase) {
        case (.backoff(let after), .backingOff(let attempt)) where after == attemptID:
            return beginAttempt(attempt)
        case (.open(let timed), .opening(let current, _)) where timed == current:
            let error = TransportError(
                code: .connectTimeout, message: "the connection was not opened within \(settings.connectTimeout)")
            return [.cancelOpen(attempt: current)] + openFailed(attempt: current, error: error, decide: decide)
        case (.handshake(let timed), .handshaking(_, let current, _)) where timed == current:
            let error = TransportError(
                code: .handshakeTimeout, message: "the connection was not ready within \(settings.handshakeTimeout)")
            return linkFailed(generation: current, error: error, decide: decide)
        default:
            return []  // A timer that is no longer current.
        }
    }

    // MARK: Steps

    private mutating func hold(_ waiter: Waiter, _ kind: WaiterKind) -> UInt64 {
        nextWaiterID += 1
        waiters.append(Held(id: nextWaiterID, waiter: waiter, kind: kind))
        return nextWaiterID
    }

    private mutating func takeWaiters(where predicate: (Held) -> Bool) -> [Waiter] {
        var taken: [Waiter] = []
        waiters.removeAll { held in
            guard predicate(held) else { return false }
            taken.append(held.waiter)
            return true
        }
        return taken
    }

    private func admitOffline() throws(TransportError) {
        guard isRunning else {
            throw TransportError(code: .notConnected, message: "the connection is not running", cause: lastError)
        }
        guard let limit = settings.offlineQueueLimit else {
            throw TransportError(code: .notConnected, message: "not connected, and the offline policy holds nothing (no offline queue)")
        }
        // Held work is messages and callers of the link; the callers of start and of an
        // explicit reconnect wait for the connection itself and take no place.
        guard offlineQueueDepth < limit else {
            throw TransportError(code: .offlineQueueFull, message: "the offline queue is full (limit \(limit))")
        }
    }

    private mutating func beginAttempt(_ attempt: Int) -> [Action] {
        attemptID += 1
        phase = .opening(id: attemptID, attempt: attempt)
        return [.open(attempt: attemptID), .startTimer(.open(attemptID), delay: settings.connectTimeout)]
    }

    private mutating func becomeReady(_ link: Link, generation: UInt64) -> [Action] {
        phase = .connected(link, generation: generation)
        everConnected = true
        explicitReconnect = nil
        var actions: [Action] = [.startLiveness(link, generation: generation)]
        if !outbox.isEmpty {
            actions.append(.flush(outbox, to: link))
            outbox = []
        }
        actions.append(.ready(link, generation: generation))
        actions += publish(.connected)
        let ready = takeWaiters { _ in true }
        if !ready.isEmpty { actions.append(.resume(ready, link: link, generation: generation)) }
        return actions
    }

    /// Ends the attempt or link in progress, for a close or an explicit reconnect.
    private mutating func stopCurrentAttempt(reason: CloseReason) -> [Action] {
        switch phase {
        case .opening(let id, _):
            return [.cancelTimer(.open(id)), .cancelOpen(attempt: id)]
        case .handshaking(let link, let generation, _):
            return [
                .cancelTimer(.handshake(generation)), .cancelHandshake(generation: generation),
                .closeLink(link, generation: generation, reason: reason), .lost(generation: generation),
            ]
        case .connected(let link, let generation):
            return [.closeLink(link, generation: generation, reason: reason), .lost(generation: generation)]
        case .backingOff:
            return [.cancelTimer(.backoff(after: attemptID))]
        case .idle, .gaveUp, .closed:
            return []
        }
    }

    /// Stops trying after `error`: publishes it and fails whoever waits (the callers of start
    /// with the error itself, held work with `notConnected`).
    private mutating func stop(after error: TransportError) -> [Action] {
        var actions = publish(.disconnected(error))
        outbox = []
        let starters = takeWaiters { $0.kind != .caller }
        if !starters.isEmpty { actions.append(.fail(starters, error)) }
        let callers = takeWaiters { _ in true }
        if !callers.isEmpty {
            actions.append(
                .fail(callers, TransportError(code: .notConnected, message: "could not connect: \(error.message)", cause: error)))
        }
        return actions
    }

    private mutating func failAll(_ error: TransportError) -> [Action] {
        outbox = []
        let failed = takeWaiters { _ in true }
        return failed.isEmpty ? [] : [.fail(failed, error)]
    }

    private mutating func publish(_ state: ConnectionState) -> [Action] {
        // A connection starts out `connecting`: a first attempt changes nothing.
        if case .connecting = state, case .connecting = published { return [] }
        published = state
        return [.publish(state)]
    }
}

extension ConnectionState {
    /// Whether this is `reconnecting`.
    fileprivate var isReconnecting: Bool {
        if case .reconnecting = self { return true }
        return false
    }
}
