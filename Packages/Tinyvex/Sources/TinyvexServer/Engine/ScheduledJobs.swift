import Foundation
import RpcTransport
import Synchronization
import TinyvexProtocol

/// The server's scheduled functions at run time: one alarm (``EarliestAlarm``) on a
/// ``DeadlineTimer`` (the stack's one timer; no loop of its own sleeps) for the earliest function the store
/// holds, and the tasks that run what is due, owned here and cancelled and awaited when the
/// server stops.
///
/// When the alarm passes, the engine's due pass runs every due function, then the alarm is
/// armed again for the earliest one left. A scheduled mutation runs in one transaction with the
/// removal of its row (exactly once, across restarts too); a scheduled action's row is removed
/// before it starts (at most once). Functions due while the server was stopped run when it
/// starts.
final class ScheduledJobs: Sendable {
    private let schema: TinyvexSchema
    let maxPending: Int
    private let maxDelay: Duration
    private let timer = DeadlineTimer()
    private let tasks = OwnedTasks<UInt64>()
    private let counter = Atomic<UInt64>(0)
    /// Armed for the earliest stored function.
    private let alarm: EarliestAlarm
    /// The engine's due pass, from ``start(duePass:)`` until ``close()``.
    private let duePass = Mutex<(@Sendable () async -> Void)?>(nil)

    /// How many due functions one read of the store takes.
    static let dueBatch = 64
    /// How long the next pass waits after one that could not run or remove a due row.
    static let retryDelayMilliseconds: Int64 = 1_000

    init(schema: TinyvexSchema, configuration: TinyvexServerConfiguration) {
        self.schema = schema
        self.maxPending = configuration.maxPendingScheduledFunctions
        self.maxDelay = configuration.maxScheduleDelay
        let passed = Mutex<(@Sendable () -> Void)?>(nil)
        self.alarm = EarliestAlarm(timer: timer) { passed.withLock { $0 }?() }
        passed.withLock { $0 = { [weak self] in self?.alarmPassed() } }
    }

    /// Starts: `duePass` runs what is due whenever the alarm passes, and runs once now (for the
    /// functions due while the server was stopped, and to arm for the others).
    func start(duePass: @escaping @Sendable () async -> Void) {
        self.duePass.withLock { $0 = duePass }
        spawn(duePass)
    }

    /// Stops: no alarm passes any more; the due pass and the actions under way are cancelled
    /// and awaited. Functions not run stay stored for the next start.
    func close() async {
        duePass.withLock { $0 = nil }
        timer.close()
        await tasks.close()
    }

    /// Runs `body` in a task owned here (a scheduled action).
    func spawn(_ body: @escaping @Sendable () async -> Void) {
        tasks.spawn(counter.add(1, ordering: .relaxed).newValue, body)
    }

    /// Arms the alarm for `runAt` unless it is armed for then or earlier. Called as a function
    /// is stored: should its mutation roll back, the alarm finds nothing due, which is harmless.
    func wake(at runAt: Int64) {
        guard duePass.withLock({ $0 != nil }) else { return }
        alarm.arm(at: runAt, now: Self.nowMilliseconds())
    }

    /// The alarm passed: runs the due pass.
    private func alarmPassed() {
        guard let duePass = duePass.withLock({ $0 }) else { return }
        spawn(duePass)
    }

    // MARK: Checks of a new scheduled function

    /// What `name` is, or `TVX003` when the schema has no mutation or action by that name.
    func kind(of name: String) throws(TinyvexServerError) -> ScheduledStore.Kind {
        if schema.mutations[name] != nil { return .mutation }
        if schema.actions[name] != nil { return .action }
        throw TinyvexServerError(.mutationFailed, "no mutation or action named \(name) to schedule", details: ["reason": "unknownFunction"])
    }

    /// When a function scheduled `delay` from now is due; a negative delay is now.
    func runAt(after delay: Duration) throws(TinyvexServerError) -> Int64 {
        guard delay <= maxDelay else { throw tooFar() }
        let (seconds, attoseconds) = max(delay, .zero).components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        let (milliseconds, tooLate) = whole.addingReportingOverflow(attoseconds / 1_000_000_000_000_000)
        let (runAt, past) = Self.nowMilliseconds().addingReportingOverflow(milliseconds)
        guard !overflow, !tooLate, !past else { throw tooFar() }
        return runAt
    }

    /// When a function scheduled at `date` is due; a past date is now.
    func runAt(_ date: Date) throws(TinyvexServerError) -> Int64 {
        let now = Self.nowMilliseconds()
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded(.up)
        guard milliseconds.isFinite, let target = Int64(exactly: milliseconds.clamped(to: -9.0e15 ... 9.0e15)),
            Duration.milliseconds(target.subtractingReportingOverflow(now).partialValue) <= maxDelay
        else { throw tooFar() }
        return max(target, now)
    }

    /// The error of a function scheduled too many.
    func tooMany() -> TinyvexServerError {
        TinyvexServerError(
            .mutationFailed, "\(maxPending) scheduled functions wait already (maxPendingScheduledFunctions)",
            details: ["reason": "tooManyScheduledFunctions"])
    }

    private func tooFar() -> TinyvexServerError {
        TinyvexServerError(.mutationFailed, "a function may be scheduled at most \(maxDelay) ahead (maxScheduleDelay)", details: ["reason": "scheduleTooFar"])
    }

    /// The wall clock in milliseconds since 1970, which stored due times use (they outlive a
    /// restart, where the timer's clock does not).
    static func nowMilliseconds() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).clamped(to: 0 ... 9.0e15))
    }

    /// The error that tells the due pass a scheduled mutation's row was gone when it ran
    /// (cancelled, or run by another pass): nothing was done.
    static let gone = TinyvexServerError(.mutationFailed, "the scheduled function is no longer waiting", details: ["reason": "scheduledFunctionGone"])

    /// `body` preceded, in its savepoint, by the removal of the row `id`: the mutation and the
    /// removal commit together or not at all, and a row already removed runs nothing.
    static func claiming(_ id: Int64, _ body: @escaping TinyvexSchema.MutationBody) -> TinyvexSchema.MutationBody {
        { context, args in
            guard try ScheduledStore.remove(id, context.db) else { throw gone }
            return try body(context, args)
        }
    }
}

extension Double {
    fileprivate func clamped(to range: ClosedRange<Double>) -> Double {
        Swift.min(Swift.max(self, range.lowerBound), range.upperBound)
    }
}
