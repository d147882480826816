public import Foundation
public import RivetKit

/// An actor's schedules (RivetKit's `c.schedule`): actions of this actor to run later, kept in
/// the store so that they run after a restart too (a sleeping actor is woken for them), each at
/// most once.
///
/// ```swift
/// .action("remind") { (context: inout ActorContext<Notes>, text: String) in
///     try await context.schedule.after(.seconds(30), "notify", text)
/// }
/// ```
public struct ActorSchedule: Sendable {
    let runtime: ActorRuntime

    init(runtime: ActorRuntime) {
        self.runtime = runtime
    }

    /// Schedules action `action` with positional `args` to run after `delay` (a negative delay
    /// runs it as soon as possible); returns the schedule's id.
    ///
    /// - Throws: ``ActorError`` `schedule.max_schedules_exceeded` when the actor has as
    ///   many pending schedules as the server allows, `schedule.invalid_time` when `delay` is
    ///   out of range, `rivetkit.internal_error` when an argument cannot be encoded as JSON or
    ///   the store fails.
    @discardableResult
    public func after(_ delay: Duration, _ action: String, _ args: any Encodable...) async throws(ActorError) -> String {
        try await after(delay, action, args: args)
    }

    /// Schedules `action` with the positional arguments `args` after `delay`.
    ///
    /// - Throws: As ``after(_:_:_:)``.
    @discardableResult
    public func after(_ delay: Duration, _ action: String, args: [any Encodable]) async throws(ActorError) -> String {
        let runAt = try ScheduleTime.runAt(after: delay, now: ScheduleTime.nowMilliseconds())
        return try await scheduler().add(actorId: runtime.actorId, action: action, args: Self.encode(args), runAt: runAt)
    }

    /// Schedules `action` with positional `args` at `date` (a past date runs it as soon as
    /// possible); returns the schedule's id.
    ///
    /// - Throws: As ``after(_:_:_:)``; `schedule.invalid_time` for a date out of range.
    @discardableResult
    public func at(_ date: Date, _ action: String, _ args: any Encodable...) async throws(ActorError) -> String {
        try await at(date, action, args: args)
    }

    /// Schedules `action` with the positional arguments `args` at `date`.
    ///
    /// - Throws: As ``at(_:_:_:)``.
    @discardableResult
    public func at(_ date: Date, _ action: String, args: [any Encodable]) async throws(ActorError) -> String {
        let runAt = try ScheduleTime.milliseconds(date)
        return try await scheduler().add(actorId: runtime.actorId, action: action, args: Self.encode(args), runAt: runAt)
    }

    /// Cancels a pending schedule of this actor; returns whether there was one.
    ///
    /// - Throws: ``ActorError`` `rivetkit.internal_error` when the store fails.
    @discardableResult
    public func cancel(_ id: String) async throws(ActorError) -> Bool {
        try await scheduler().cancel(actorId: runtime.actorId, id: id)
    }

    /// This actor's pending schedules, earliest first.
    ///
    /// - Throws: ``ActorError`` `rivetkit.internal_error` when the store fails.
    public func list() async throws(ActorError) -> [ActorScheduleEntry] {
        try await scheduler().list(actorId: runtime.actorId).map { schedule in
            ActorScheduleEntry(
                id: schedule.id, action: schedule.action, args: schedule.args,
                runAt: Date(timeIntervalSince1970: Double(schedule.runAt) / 1000))
        }
    }

    private func scheduler() throws(ActorError) -> ActorScheduler {
        guard let scheduler = runtime.scheduler else {
            throw ActorError(.rivetkitInternalError, "this actor cannot schedule")
        }
        return scheduler
    }

    private static func encode(_ args: [any Encodable]) throws(ActorError) -> [JSONValue] {
        var values: [JSONValue] = []
        for arg in args {
            values.append(try ActorValueCoding.encode(arg))
        }
        return values
    }
}
