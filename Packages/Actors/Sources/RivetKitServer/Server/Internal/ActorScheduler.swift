import Foundation
import RivetKit
import RpcTransport
import Synchronization

/// The one place of a server that knows when the next schedule of any actor is due, awake or
/// asleep: it keeps one alarm (``EarliestAlarm``) on the server's
/// ``DeadlineTimer`` for the earliest
/// pending schedule in the store. When the alarm passes it claims (removes) the due schedules
/// from the store and hands each to `fire`, which wakes the actor and runs the action; then it
/// arms for the next one. A schedule is removed before its action runs, so it runs at most once.
final class ActorScheduler: Sendable {
    /// The store, when it keeps schedules.
    let store: (any ActorScheduleStore)?
    private let maxSchedules: Int
    private let reportProblem: @Sendable (String) -> Void
    /// Claims, and the actions they run.
    private let tasks = OwnedTasks<UInt64>()
    private let counter = Atomic<UInt64>(0)
    /// Armed for the earliest pending schedule.
    private let alarm: EarliestAlarm
    private let fire = Mutex<(@Sendable (StoredSchedule) async -> Void)?>(nil)

    /// How many due schedules one claim takes.
    static let claimBatch = 256

    init(store: any ActorStore, timer: DeadlineTimer, maxSchedules: Int, reportProblem: @escaping @Sendable (String) -> Void) {
        self.store = store as? any ActorScheduleStore
        self.maxSchedules = maxSchedules
        self.reportProblem = reportProblem
        let passed = Mutex<(@Sendable () -> Void)?>(nil)
        self.alarm = EarliestAlarm(timer: timer) { passed.withLock { $0 }?() }
        passed.withLock { $0 = { [weak self] in self?.alarmPassed() } }
    }

    /// Starts firing: `fire` runs each due schedule's action. Arms for the earliest schedule the
    /// store holds (those made before a restart among them).
    func start(fire: @escaping @Sendable (StoredSchedule) async -> Void) {
        self.fire.withLock { $0 = fire }
        spawn { await self.rearm() }
    }

    /// Stops: no alarm fires any more, claims and actions under way are cancelled.
    func shutdown() async {
        fire.withLock { $0 = nil }
        alarm.clear()
        await tasks.close()
    }

    // MARK: An actor's schedules

    /// Stores a schedule and arms for it when it is the earliest; returns its id.
    func add(actorId: String, action: String, args: [JSONValue], runAt: Int64) async throws(ActorError) -> String {
        let store = try requireStore()
        let schedule = StoredSchedule(id: UUID().uuidString.lowercased(), actorId: actorId, action: action, args: args, runAt: runAt)
        let added: Bool
        do {
            added = try await store.insertSchedule(schedule, limit: maxSchedules)
        } catch {
            throw storeFailure(error)
        }
        guard added else {
            throw ActorError(
                .scheduleMaxSchedulesExceeded,
                "the actor has \(maxSchedules) pending schedules, the most allowed",
                metadata: ["limit": .integer(Int64(maxSchedules))])
        }
        arm(at: runAt)
        return schedule.id
    }

    /// Removes a pending schedule of an actor; returns whether there was one.
    func cancel(actorId: String, id: String) async throws(ActorError) -> Bool {
        let store = try requireStore()
        do {
            return try await store.deleteSchedule(actorId: actorId, id: id)
        } catch {
            throw storeFailure(error)
        }
    }

    /// An actor's pending schedules, earliest first.
    func list(actorId: String) async throws(ActorError) -> [StoredSchedule] {
        let store = try requireStore()
        do {
            return try await store.schedules(actorId: actorId)
        } catch {
            throw storeFailure(error)
        }
    }

    // MARK: The alarm

    /// Arms the alarm for `runAt` unless it is armed for that time or earlier.
    private func arm(at runAt: Int64) {
        guard fire.withLock({ $0 != nil }) else { return }
        alarm.arm(at: runAt, now: ScheduleTime.nowMilliseconds())
    }

    /// The alarm passed: claims what is due and arms for what is left.
    private func alarmPassed() {
        spawn { await self.claimDue() }
    }

    private func claimDue() async {
        guard let store, let fire = fire.withLock({ $0 }) else { return }
        while !Task.isCancelled {
            let due: [StoredSchedule]
            do {
                due = try await store.claimDueSchedules(now: ScheduleTime.nowMilliseconds(), limit: Self.claimBatch)
            } catch {
                reportProblem("the due schedules could not be claimed: \(error)")
                break
            }
            for schedule in due {
                spawn { await fire(schedule) }
            }
            if due.count < Self.claimBatch { break }
        }
        await rearm()
    }

    /// Reads the earliest schedule in the store again and arms for it: with several servers on
    /// one store, a schedule another node added (and that node's own alarm, if it died) is
    /// seen here within one refresh.
    func refresh() async {
        await rearm()
    }

    /// Arms for the earliest schedule in the store.
    private func rearm() async {
        guard let store else { return }
        do {
            if let next = try await store.nextScheduleTime() {
                arm(at: next)
            }
        } catch {
            reportProblem("the next schedule could not be read: \(error)")
        }
    }

    private func spawn(_ body: @escaping @Sendable () async -> Void) {
        tasks.spawn(counter.add(1, ordering: .relaxed).newValue, body)
    }

    private func requireStore() throws(ActorError) -> any ActorScheduleStore {
        guard let store else {
            throw ActorError(.rivetkitInternalError, "the actor store keeps no schedules")
        }
        return store
    }

    private func storeFailure(_ error: any Error) -> ActorError {
        reportProblem("the actor store failed on a schedule: \(error)")
        return ActorError(.rivetkitInternalError, "the actor store failed")
    }
}
