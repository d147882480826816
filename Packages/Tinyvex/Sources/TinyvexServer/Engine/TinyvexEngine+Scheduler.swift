import RpcTransport
import RpcWire
import TinyvexProtocol

extension TinyvexEngine {
    /// The due pass: runs every scheduled function due now, earliest first, then arms the
    /// alarm for the earliest one left.
    ///
    /// A mutation runs through the group commit like any other, with the removal of its row in
    /// its savepoint: it commits once, and a row already gone (cancelled, or run by another
    /// pass) runs nothing. A mutation that fails has no effect; its row is then removed on its
    /// own and the failure logged. An action's row is removed first, then the action runs in a
    /// task the scheduler owns, within `actionTimeout`: at most once.
    func runDueFunctions() async {
        var seen: Set<Int64> = []
        // Whether a row could not be run or removed: the next pass then waits a little, rather
        // than finding it due again at once.
        var stuck = false
        while !Task.isCancelled {
            let due: [ScheduledStore.Job]
            do {
                let configuration = self.configuration
                due = try syncWrite { store in
                    try store.dueScheduled(now: ScheduledJobs.nowMilliseconds(), limit: ScheduledJobs.dueBatch, report: configuration.emit)
                }
            } catch {
                configuration.emit("tinyvex: the due scheduled functions could not be read: \(error)")
                stuck = true
                break
            }
            let fresh = due.filter { seen.insert($0.id).inserted }
            for job in fresh {
                switch job.kind {
                case .mutation:
                    if !(await runScheduledMutation(job)) { stuck = true }
                case .action:
                    let removed: Bool
                    do {
                        removed = try syncWrite { store in try store.removeScheduled(job.id) }
                    } catch {
                        configuration.emit("tinyvex: the scheduled action \(job.name) (\(job.id)) could not be claimed: \(error)")
                        stuck = true
                        continue
                    }
                    if removed {
                        jobs.spawn { await self.runScheduledAction(job) }
                    }
                }
            }
            // Fewer than a batch, or only rows seen before (which failed to go): done.
            if due.count < ScheduledJobs.dueBatch || fresh.isEmpty { break }
        }
        do {
            if let next = try syncRead({ store in try store.nextScheduledRunAt() }) {
                jobs.wake(at: stuck ? max(next, ScheduledJobs.nowMilliseconds() + ScheduledJobs.retryDelayMilliseconds) : next)
            }
        } catch {
            configuration.emit("tinyvex: the next scheduled function could not be read: \(error)")
        }
    }

    /// Runs one scheduled mutation; returns whether its row is gone (run, or failed and
    /// removed).
    private func runScheduledMutation(_ job: ScheduledStore.Job) async -> Bool {
        do {
            _ = try await mutate(connectionID: nil, identity: nil, requestID: nil, name: job.name, args: job.args, claiming: job.id)
        } catch where error.details?["reason"] == ScheduledJobs.gone.details?["reason"] {
            // Cancelled or run meanwhile: nothing to do.
        } catch {
            // The mutation threw (or its commit failed): it is dropped, as Convex drops a
            // scheduled mutation that fails.
            configuration.emit("tinyvex: the scheduled mutation \(job.name) (\(job.id)) failed and is dropped: \(error)")
            do {
                _ = try syncWrite { store in try store.removeScheduled(job.id) }
            } catch {
                configuration.emit("tinyvex: the failed scheduled mutation \(job.id) could not be removed: \(error)")
                return false
            }
        }
        return true
    }

    /// Runs a scheduled action (its row already removed) without an identity, within
    /// `actionTimeout`; a failure is logged.
    private nonisolated func runScheduledAction(_ job: ScheduledStore.Job) async {
        guard let function = schema.actions[job.name], !function.requiresIdentity else {
            configuration.emit("tinyvex: the scheduled action \(job.name) (\(job.id)) is not run: no such action, or it needs an identity")
            return
        }
        let context = TinyvexActionContext(identity: nil, engine: self, connectionID: nil)
        let timeout = configuration.actionTimeout
        let outcome = try? await Deadline.race(timeout) { () async -> ScheduledActionOutcome in
            do {
                _ = try await function.body(context, job.args)
                return .ran
            } catch {
                return .failed("\(error)")
            }
        }
        switch outcome {
        case nil:
            configuration.emit("tinyvex: the scheduled action \(job.name) (\(job.id)) ran longer than \(timeout) or was cancelled")
        case .failed(let reason)?:
            configuration.emit("tinyvex: the scheduled action \(job.name) (\(job.id)) failed: \(reason)")
        case .ran?:
            break
        }
    }

    /// Stores a function scheduled by an action (in a transaction of its own) and arms for it;
    /// returns its id.
    func schedule(_ name: String, args: JSONValue, runAt: Int64) throws(TinyvexServerError) -> Int64 {
        let kind = try jobs.kind(of: name)
        let limit = jobs.maxPending
        let id: Int64?
        do {
            id = try syncWrite { store in try store.insertScheduled(kind: kind, name: name, args: args, runAt: runAt, limit: limit) }
        } catch {
            throw TinyvexServerError(.mutationFailed, "the function could not be scheduled: \(error)")
        }
        guard let id else { throw jobs.tooMany() }
        jobs.wake(at: runAt)
        return id
    }

    /// Removes a scheduled function (for an action); returns whether it was waiting.
    func cancelScheduled(_ id: Int64) throws(TinyvexServerError) -> Bool {
        do {
            return try syncWrite { store in try store.removeScheduled(id) }
        } catch {
            throw TinyvexServerError(.mutationFailed, "the scheduled function could not be cancelled: \(error)")
        }
    }

    /// A write transaction on the engine's queue, blocking it as a commit does.
    private func syncWrite<T>(_ body: (any TinyvexStoreTransaction) throws -> T) throws -> T {
        try store.write(body)
    }

    /// A read on the engine's queue, blocking it (see ``syncWrite(_:)``).
    private func syncRead<T>(_ body: (any TinyvexStoreTransaction) throws -> T) throws -> T {
        try store.read(body)
    }

    /// How many scheduled functions wait (for tests).
    var pendingScheduledCount: Int {
        (try? syncRead { store in try store.scheduledCount() }) ?? 0
    }
}

/// How a scheduled action ended.
private enum ScheduledActionOutcome: Sendable {
    case ran
    case failed(String)
}
