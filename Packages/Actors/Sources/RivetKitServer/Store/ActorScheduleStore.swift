/// An ``ActorStore`` that also keeps the actors' pending schedules, so that they fire after a
/// restart. Removing an actor (``ActorStore/delete(id:)``) removes its schedules.
///
/// ``SQLiteActorStore`` conforms; on a store that does not, scheduling fails with
/// `rivetkit.internal_error`.
public protocol ActorScheduleStore: ActorStore {
    /// Adds a schedule unless its actor has `limit` pending ones already; returns whether it
    /// was added.
    func insertSchedule(_ schedule: StoredSchedule, limit: Int) async throws -> Bool
    /// Removes one of an actor's schedules; returns whether there was one.
    func deleteSchedule(actorId: String, id: String) async throws -> Bool
    /// An actor's pending schedules, earliest first.
    func schedules(actorId: String) async throws -> [StoredSchedule]
    /// Removes and returns up to `limit` schedules due at `now` (milliseconds since 1970), of
    /// every actor, earliest first: a schedule returned here is never returned again.
    func claimDueSchedules(now: Int64, limit: Int) async throws -> [StoredSchedule]
    /// When the earliest pending schedule of any actor is due; `nil` when there is none.
    func nextScheduleTime() async throws -> Int64?
}
