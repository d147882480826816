import Foundation
import GRDB
import RivetKit

extension SQLiteActorStore: ActorScheduleStore {
    /// Registers the schedule table's migration.
    static func registerScheduleMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("schedules-v1") { db in
            try db.create(table: "schedule") { table in
                table.primaryKey("id", .text)
                table.column("actorId", .text).notNull().indexed()
                table.column("action", .text).notNull()
                table.column("args", .text).notNull()
                table.column("runAt", .integer).notNull().indexed()
            }
        }
    }

    /// Adds a schedule unless its actor has `limit` pending ones.
    public func insertSchedule(_ schedule: StoredSchedule, limit: Int) async throws -> Bool {
        let args = try JSONValue.array(schedule.args).jsonString()
        return try await database.write { db in
            let count = try Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM schedule WHERE actorId = CAST(? AS TEXT)",
                arguments: [Self.text(schedule.actorId)]) ?? 0
            guard count < limit else { return false }
            try db.execute(
                sql: """
                    INSERT INTO schedule (id, actorId, action, args, runAt)
                    VALUES (CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), ?)
                    """,
                arguments: [
                    Self.text(schedule.id), Self.text(schedule.actorId), Self.text(schedule.action), Self.text(args),
                    schedule.runAt,
                ])
            return true
        }
    }

    /// Removes one of an actor's schedules.
    public func deleteSchedule(actorId: String, id: String) async throws -> Bool {
        try await database.write { db in
            try db.execute(
                sql: "DELETE FROM schedule WHERE id = CAST(? AS TEXT) AND actorId = CAST(? AS TEXT)",
                arguments: [Self.text(id), Self.text(actorId)])
            return db.changesCount > 0
        }
    }

    /// An actor's pending schedules, earliest first.
    public func schedules(actorId: String) async throws -> [StoredSchedule] {
        try await database.read { db in
            try Row.fetchAll(
                db, sql: "\(Self.selectSchedule) WHERE actorId = CAST(? AS TEXT) ORDER BY runAt, id",
                arguments: [Self.text(actorId)]
            ).map(Self.schedule)
        }
    }

    /// Removes and returns the due schedules, in one transaction.
    public func claimDueSchedules(now: Int64, limit: Int) async throws -> [StoredSchedule] {
        try await database.write { db in
            let rows = try Row.fetchAll(
                db, sql: "\(Self.selectSchedule) WHERE runAt <= ? ORDER BY runAt, id LIMIT ?",
                arguments: [now, max(limit, 1)])
            let due = try rows.map(Self.schedule)
            for schedule in due {
                try db.execute(sql: "DELETE FROM schedule WHERE id = CAST(? AS TEXT)", arguments: [Self.text(schedule.id)])
            }
            return due
        }
    }

    /// When the earliest pending schedule is due.
    public func nextScheduleTime() async throws -> Int64? {
        try await database.read { db in
            try Int64.fetchOne(db, sql: "SELECT MIN(runAt) FROM schedule")
        }
    }

    private static let selectSchedule = """
        SELECT CAST(id AS BLOB) AS id, CAST(actorId AS BLOB) AS actorId, CAST(action AS BLOB) AS action,
        CAST(args AS BLOB) AS args, runAt FROM schedule
        """

    private static func schedule(_ row: Row) throws -> StoredSchedule {
        let id = try text(row, "id")
        guard case .array(let args) = try? JSONValue(parsing: try text(row, "args")) else {
            throw ActorError(.rivetkitInternalError, "the arguments of schedule \(id) are not a JSON array")
        }
        return StoredSchedule(
            id: id, actorId: try text(row, "actorId"), action: try text(row, "action"), args: args,
            runAt: Int64.fromDatabaseValue(row["runAt"] as DatabaseValue) ?? 0)
    }
}
