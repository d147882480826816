public import Foundation
import RpcWire
import TinyvexProtocol

/// A mutation's scheduler (`context.scheduler`): functions it schedules are stored in the
/// mutation's own savepoint, so they are scheduled only if the mutation commits, and cancelled
/// ones only if it commits.
///
/// ```swift
/// schema.mutation("messages.schedule") { (context, args: ScheduleArgs) in
///     try context.scheduler.runAfter(.milliseconds(args.delayMs), "messages.send", args: args.message)
/// }
/// ```
///
/// A scheduled mutation runs exactly once (its run and the removal of its schedule commit
/// together, across restarts too); a scheduled action at most once. Scheduled functions run
/// without an identity.
public struct TinyvexMutationScheduler {
    let context: TinyvexMutationContext

    /// Schedules the mutation or action `name` with `args` to run `delay` from now (now when
    /// the delay is not positive); returns its id, for ``cancel(_:)``.
    ///
    /// - Throws: ``TinyvexServerError`` `TVX003`: no mutation or action `name`, `args` that
    ///   do not encode, a delay past `maxScheduleDelay`, or `maxPendingScheduledFunctions`
    ///   waiting already.
    @discardableResult
    public func runAfter(_ delay: Duration, _ name: String, args: some Encodable) throws -> String {
        let jobs = try requireJobs()
        return try store(name, args: args, runAt: try jobs.runAt(after: delay), jobs)
    }

    /// Schedules the mutation or action `name` with `args` to run at `date` (now when it is
    /// past); returns its id, for ``cancel(_:)``.
    ///
    /// - Throws: As ``runAfter(_:_:args:)``.
    @discardableResult
    public func runAt(_ date: Date, _ name: String, args: some Encodable) throws -> String {
        let jobs = try requireJobs()
        return try store(name, args: args, runAt: try jobs.runAt(date), jobs)
    }

    /// Cancels the scheduled function `id` unless it has run or started; returns whether it
    /// was waiting.
    @discardableResult
    public func cancel(_ id: String) throws -> Bool {
        guard let row = Int64(id) else { return false }
        return try ScheduledStore.remove(row, context.db)
    }

    private func store(_ name: String, args: some Encodable, runAt: Int64, _ jobs: ScheduledJobs) throws -> String {
        let kind = try jobs.kind(of: name)
        let encoded: JSONValue
        do {
            encoded = try JSONValueEncoder().encode(args)
        } catch {
            throw TinyvexServerError(.mutationFailed, "the arguments of the scheduled \(name) do not encode: \(error)")
        }
        guard let id = try ScheduledStore.insert(kind: kind, name: name, args: encoded, runAt: runAt, limit: jobs.maxPending, context.db) else {
            throw jobs.tooMany()
        }
        // Armed now; should the mutation roll back, the alarm finds nothing due.
        jobs.wake(at: runAt)
        return String(id)
    }

    private func requireJobs() throws(TinyvexServerError) -> ScheduledJobs {
        guard let jobs = context.jobs else {
            throw TinyvexServerError(.mutationFailed, "this mutation context has no scheduler")
        }
        return jobs
    }
}
