import HeapModule

/// The deadlines armed on one ``DeadlineTimer``, as a value: what to arm, what has passed, and
/// when the timer should wake next.
///
/// Arming and a wake's taking of each passed deadline are O(log n) (a heap ordered by
/// deadline); disarming is O(1), and the heap sheds what was disarmed once it holds more of
/// that than of what is armed. Wakes are coalesced: the timer wakes at most once per
/// ``slack``, so a deadline is noticed up to ``slack`` late, never early.
struct DeadlineSchedule<Expire> {
    /// How late a deadline may be noticed, so that deadlines close together share a wake.
    static var slack: Duration { .milliseconds(5) }

    private struct Slot: Comparable {
        var deadline: ContinuousClock.Instant
        var id: UInt64

        static func < (lhs: Slot, rhs: Slot) -> Bool {
            (lhs.deadline, lhs.id) < (rhs.deadline, rhs.id)
        }
    }

    /// What is armed, by id.
    private var armed: [UInt64: (deadline: ContinuousClock.Instant, expire: Expire)] = [:]
    /// The deadlines in order; a slot whose id is no longer armed (for that deadline) is spent.
    private var slots = Heap<Slot>()
    /// When the timer is set to wake; `nil` while no timer runs.
    private(set) var wake: ContinuousClock.Instant?

    /// How many deadlines are armed.
    var count: Int { armed.count }

    /// How many slots the heap keeps, spent ones included (at most twice what is armed, plus 64).
    var storedCount: Int { slots.count }

    /// Arms `expire` for `deadline` under `id` (replacing what `id` armed before).
    ///
    /// - Returns: When the timer must now wake (it starts, or restarts earlier); `nil` when
    ///   the running timer wakes in time.
    mutating func arm(_ id: UInt64, until deadline: ContinuousClock.Instant, _ expire: Expire) -> ContinuousClock.Instant? {
        armed[id] = (deadline, expire)
        slots.insert(Slot(deadline: deadline, id: id))
        if let wake, wake <= deadline + Self.slack { return nil }
        wake = deadline
        return deadline
    }

    /// Disarms `id`: what it armed will not run (a no-op once it ran, or was never armed).
    mutating func disarm(_ id: UInt64) {
        guard armed.removeValue(forKey: id) != nil else { return }
        if slots.count > 2 * armed.count + 64 {
            slots = Heap(armed.map { Slot(deadline: $0.value.deadline, id: $0.key) })
        }
    }

    /// The timer woke at `now`: takes what has passed.
    ///
    /// - Returns: What to run, and when the timer wakes next (`nil`: it ends, nothing is armed).
    mutating func fire(at now: ContinuousClock.Instant) -> (expired: [Expire], next: ContinuousClock.Instant?) {
        var expired: [Expire] = []
        while let first = slots.min {
            let current = armed[first.id]
            if let current, current.deadline == first.deadline {
                guard first.deadline <= now else { break }
                expired.append(current.expire)
                armed[first.id] = nil
            }
            slots.removeMin()
        }
        wake = slots.min.map { max($0.deadline, now + Self.slack) }
        return (expired, wake)
    }

    /// Forgets everything armed (none of it runs) and returns to no timer.
    mutating func removeAll() {
        armed = [:]
        slots = Heap()
        wake = nil
    }
}
