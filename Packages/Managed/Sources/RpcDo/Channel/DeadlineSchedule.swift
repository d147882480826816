/// The deadlines of one channel's waiting attempts, as a value: what to arm, what has passed,
/// and when the channel's one timer should wake next.
///
/// Arming and disarming are O(1); a wake scans what is armed once. Wakes are coalesced: a
/// timer wakes at most once per ``slack``, so a deadline may pass up to ``slack`` late, never
/// early. ``AttemptDeadlines`` runs it behind a lock under one timer task.
struct DeadlineSchedule<Expire> {
    /// How late a deadline may be noticed, so that deadlines close together share a wake.
    static var slack: Duration { .milliseconds(5) }

    private var armed: [UInt64: (deadline: ContinuousClock.Instant, expire: Expire)] = [:]
    /// When the timer is set to wake; `nil` while no timer runs.
    private(set) var wake: ContinuousClock.Instant?

    /// How many deadlines are armed.
    var count: Int { armed.count }

    /// Arms `expire` for `deadline` under `id`.
    ///
    /// - Returns: When the timer must now wake (it starts, or restarts earlier); `nil` when
    ///   the running timer wakes in time.
    mutating func arm(_ id: UInt64, until deadline: ContinuousClock.Instant, _ expire: Expire) -> ContinuousClock.Instant? {
        armed[id] = (deadline, expire)
        if let wake, wake <= deadline + Self.slack { return nil }
        wake = deadline
        return deadline
    }

    /// Disarms `id`: what it armed will not run (a no-op once it ran, or was never armed).
    mutating func disarm(_ id: UInt64) {
        armed[id] = nil
    }

    /// The timer woke at `now`: takes what has passed.
    ///
    /// - Returns: What to run, and when the timer wakes next (`nil`: it ends, nothing is armed).
    mutating func fire(at now: ContinuousClock.Instant) -> (expired: [Expire], next: ContinuousClock.Instant?) {
        var expired: [Expire] = []
        var earliest: ContinuousClock.Instant?
        for (id, entry) in armed {
            if entry.deadline <= now {
                expired.append(entry.expire)
                armed[id] = nil
            } else if earliest.map({ entry.deadline < $0 }) ?? true {
                earliest = entry.deadline
            }
        }
        wake = earliest.map { max($0, now + Self.slack) }
        return (expired, wake)
    }
}
