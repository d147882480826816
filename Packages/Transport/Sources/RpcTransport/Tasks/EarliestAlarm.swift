import Synchronization

/// One alarm, on a ``DeadlineTimer``, for the earliest of many wall-clock times: what a
/// scheduler of stored jobs needs to wake once for whichever job is due first, however many
/// are stored. Arming for a later time than the armed one does nothing; arming for an earlier
/// one moves the alarm. When it passes, the alarm is cleared and `onFire` runs (on the timer's
/// task: it should hand the work on, not do it).
///
/// Times are milliseconds since 1970 (a job's stored time), compared with the wall clock the
/// caller gives; a time already past fires at once.
///
/// ```swift
/// let alarm = EarliestAlarm(timer: timer) { jobs.runDue() }
/// alarm.arm(at: job.runAt, now: nowMilliseconds)
/// ```
public final class EarliestAlarm: Sendable {
    private struct Armed {
        var runAt: Int64?
        var id: UInt64?
    }

    private let timer: DeadlineTimer
    private let onFire: @Sendable () -> Void
    private let armed = Mutex(Armed())

    /// An alarm on `timer` that calls `onFire` when it passes.
    public init(timer: DeadlineTimer, onFire: @escaping @Sendable () -> Void) {
        self.timer = timer
        self.onFire = onFire
    }

    /// The time the alarm is armed for; `nil` when it is not armed.
    public var armedTime: Int64? { armed.withLock { $0.runAt } }

    /// Arms the alarm for `runAt` unless it is armed for then or earlier.
    ///
    /// - Parameters:
    ///   - runAt: When, in milliseconds since 1970.
    ///   - now: The wall clock now, in the same unit.
    public func arm(at runAt: Int64, now: Int64) {
        let previous = armed.withLock { armed -> (replace: Bool, old: UInt64?) in
            if let armedAt = armed.runAt, armedAt <= runAt { return (false, nil) }
            defer { armed = Armed(runAt: runAt, id: nil) }
            return (true, armed.id)
        }
        guard previous.replace else { return }
        if let old = previous.old { timer.disarm(old) }
        let (difference, overflow) = runAt.subtractingReportingOverflow(now)
        let wait: Duration = overflow ? (runAt > now ? .seconds(Int64.max / 1_000) : .zero) : .milliseconds(max(difference, 0))
        let id = timer.arm(after: wait, Pass(alarm: self))
        let stale = armed.withLock { armed -> Bool in
            guard armed.runAt == runAt, armed.id == nil else { return true }
            armed.id = id
            return false
        }
        // Moved earlier meanwhile: this wait is not needed.
        if stale, let id { timer.disarm(id) }
    }

    /// Disarms the alarm; it can be armed again.
    public func clear() {
        let id = armed.withLock { armed -> UInt64? in
            defer { armed = Armed() }
            return armed.id
        }
        if let id { timer.disarm(id) }
    }

    fileprivate func passed() {
        armed.withLock { $0 = Armed() }
        onFire()
    }

    /// The alarm's wait on the timer.
    private final class Pass: ExpiringWait {
        private weak let alarm: EarliestAlarm?

        init(alarm: EarliestAlarm) {
            self.alarm = alarm
        }

        func expire() {
            alarm?.passed()
        }
    }
}
