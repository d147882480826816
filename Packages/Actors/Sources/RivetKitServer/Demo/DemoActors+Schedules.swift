import RivetKit

extension DemoActors {
    /// The counter's `scheduleIncrement(by, delayMs)`: schedules `increment(by)` after `delayMs`
    /// milliseconds (a negative delay as none); returns the schedule's id. The `newCount` event
    /// shows it fired, also after a server restart.
    static func scheduleIncrement(_ context: inout ActorContext<Counter>, by: Int, delayMs: Int) async throws -> String {
        try await context.schedule.after(.milliseconds(delayMs), "increment", by)
    }
}
