/// The lifecycle of one actor instance, as a pure state machine: its phase (starting, awake,
/// stopping to sleep or to be destroyed, stopped), what holds it awake, and the idle rule that
/// decides when it may sleep. ``ActorInstance`` keeps one behind its lock; nothing here does
/// I/O or reads a clock.
struct ActorLifecycle: Equatable {
    /// Why an instance stops.
    enum Stop: Equatable {
        /// It was idle for its sleep timeout: its state stays in the store.
        case sleep
        /// It was destroyed: its state is removed.
        case destroy
    }

    /// Where the instance is in its life.
    enum Phase: Equatable {
        /// Running its start hooks (`onCreate`, `createVars`, `onWake`).
        case starting
        /// Serving.
        case awake
        /// Running its stop hooks; nothing new enters.
        case stopping(Stop)
        /// Gone from memory.
        case stopped(Stop)
    }

    /// The phase.
    private(set) var phase: Phase = .starting
    /// Connections (realtime, HTTP action) and keep-awake work holding the instance awake.
    private(set) var holds = 0
    /// When a hold was last released, or the instance started.
    private(set) var lastActive: ContinuousClock.Instant
    /// How long the instance stays awake with nothing holding it.
    let sleepTimeout: Duration
    /// Whether the instance never sleeps.
    let noSleep: Bool

    init(now: ContinuousClock.Instant, sleepTimeout: Duration, noSleep: Bool) {
        self.lastActive = now
        self.sleepTimeout = sleepTimeout
        self.noSleep = noSleep
    }

    /// Whether new work (a connection, a request, keep-awake work) may enter.
    var isAccepting: Bool {
        switch phase {
        case .starting, .awake: true
        case .stopping, .stopped: false
        }
    }

    /// Whether the instance is stopping or stopped to be destroyed.
    var isDestroyed: Bool {
        phase == .stopping(.destroy) || phase == .stopped(.destroy)
    }

    /// The start hooks finished.
    mutating func started(now: ContinuousClock.Instant) {
        guard phase == .starting else { return }
        phase = .awake
        lastActive = now
    }

    /// Takes a hold, unless the instance no longer accepts work; returns whether it did.
    mutating func enter() -> Bool {
        guard isAccepting else { return false }
        holds += 1
        return true
    }

    /// Releases a hold taken by ``enter()``.
    mutating func leave(now: ContinuousClock.Instant) {
        holds = max(holds - 1, 0)
        lastActive = now
    }

    /// The idle rule: awake, allowed to sleep, nothing holding it, for the sleep timeout.
    func canSleep(now: ContinuousClock.Instant) -> Bool {
        phase == .awake && !noSleep && holds == 0 && now - lastActive >= sleepTimeout
    }

    /// Begins sleeping when the idle rule allows it; returns whether it did.
    mutating func beginSleep(now: ContinuousClock.Instant) -> Bool {
        guard canSleep(now: now) else { return false }
        phase = .stopping(.sleep)
        return true
    }

    /// Begins stopping as a sleep, whatever holds the instance (its node lost the actor's
    /// lease); returns whether it did.
    mutating func beginEviction() -> Bool {
        guard isAccepting else { return false }
        phase = .stopping(.sleep)
        return true
    }

    /// Begins destroying, from any phase before stopping; returns whether it did (a second
    /// destroy, or one of a sleeping instance, does nothing).
    mutating func beginDestroy() -> Bool {
        guard isAccepting else { return false }
        phase = .stopping(.destroy)
        return true
    }

    /// The start failed: the instance is gone, as after a sleep (its saved state stays).
    mutating func failedToStart() {
        phase = .stopped(.sleep)
    }

    /// The stop hooks finished.
    mutating func stopped() {
        if case .stopping(let stop) = phase { phase = .stopped(stop) }
    }

    /// Whether the instance has stopped.
    var isStopped: Bool {
        if case .stopped = phase { return true }
        return false
    }
}
