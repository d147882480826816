import Foundation
import NIOHTTP1
import RivetKit
@testable import RivetKitServer
import RpcDoTesting
import Synchronization
import Testing

@Suite("Schedules: context.schedule.after/at, cancel, list, across sleep, restart and destroy")
struct ScheduleTests {
    /// What the scheduled actions of one server did, seen from outside the actor.
    final class Recorder: Sendable {
        private let log = Mutex<[String]>([])

        func record(_ entry: String) { log.withLock { $0.append(entry) } }
        var entries: [String] { log.withLock { $0 } }
        func count(_ entry: String) -> Int { entries.filter { $0 == entry }.count }
    }

    struct Timer: Codable, Sendable { var fired: [String] = [] }

    /// A `timer` actor: `later(ms, tag)` schedules `fire(tag)`, `fire` records the tag (in the
    /// state and in `recorder`), `onWake` records `wake`.
    static func registry(_ recorder: Recorder) -> ActorRegistry {
        let timer = ActorDefinition("timer", initialState: Timer())
            .onWake { _ in recorder.record("wake") }
            .action("later") { (context: inout ActorContext<Timer>, ms: Int, tag: String) in
                try await context.schedule.after(.milliseconds(ms), "fire", tag)
            }
            .action("atTime") { (context: inout ActorContext<Timer>, ms: Int64, tag: String) in
                try await context.schedule.at(Date(timeIntervalSince1970: Double(ms) / 1000), "fire", tag)
            }
            .action("cancel") { (context: inout ActorContext<Timer>, id: String) in
                try await context.schedule.cancel(id)
            }
            .action("list") { context in
                try await context.schedule.list().map { entry -> JSONValue in
                    ["id": .string(entry.id), "action": .string(entry.action), "args": .array(entry.args),
                     "runAt": .integer(Int64(entry.runAt.timeIntervalSince1970 * 1000))]
                }
            }
            .action("fire") { (context: inout ActorContext<Timer>, tag: String) in
                context.state.fired.append(tag)
                recorder.record(tag)
                return true
            }
            .action("fired") { context in context.state.fired }
        var registry = ActorRegistry()
        registry.register(timer)
        return registry
    }

    static func create(_ server: InProcessServer, key: String) async throws -> String {
        let body: JSONValue = ["name": "timer", "key": .string(ActorKey.serialize([key]))]
        let (status, text) = await server.request(.PUT, "/actors", json: body.description)
        guard status == 200, case .string(let id)? = try JSONValue(parsing: text)["actor"]?["actor_id"] else {
            throw ServerHarness.Unexpected()
        }
        return id
    }

    static func output(_ response: (status: Int, body: JSONValue)) throws -> JSONValue {
        guard response.status == 200, let output = response.body["output"] else {
            Issue.record("unexpected answer \(response.status) \(response.body)")
            throw ServerHarness.Unexpected()
        }
        return output
    }

    static func pending(_ server: InProcessServer) async throws -> Int64? {
        guard let store = server.core.directory.scheduler.store else { return nil }
        return try await store.nextScheduleTime()
    }

    @Test("A schedule fires its action once, and its row is gone once it has")
    func firesOnce() async throws {
        let recorder = Recorder()
        try await InProcessServer.with(registry: Self.registry(recorder)) { server in
            let id = try await Self.create(server, key: "once")
            let scheduleId = try Self.output(await server.httpAction(actorId: id, "later", args: [20, "a"]))
            #expect(scheduleId.stringValue?.isEmpty == false)
            // A later marker: once it fired, the earlier one had its only chance.
            _ = try Self.output(await server.httpAction(actorId: id, "later", args: [120, "marker"]))
            try await waitUntil("the marker fired") { recorder.count("marker") == 1 }
            #expect(recorder.count("a") == 1)
            #expect(try Self.output(await server.httpAction(actorId: id, "fired")) == ["a", "marker"])
            #expect(try Self.output(await server.httpAction(actorId: id, "list")) == [])
            #expect(try await Self.pending(server) == nil)
        }
    }

    @Test("cancel removes a pending schedule (true), which then never fires; a second cancel is false")
    func cancelStops() async throws {
        let recorder = Recorder()
        try await InProcessServer.with(registry: Self.registry(recorder)) { server in
            let id = try await Self.create(server, key: "cancel")
            // Far enough ahead that the cancel comes first even on a loaded machine; the marker,
            // due after it, shows when the cancelled one would have fired.
            let first = try Self.output(await server.httpAction(actorId: id, "later", args: [1_500, "cancelled"]))
            _ = try Self.output(await server.httpAction(actorId: id, "later", args: [1_800, "marker"]))
            #expect(try Self.output(await server.httpAction(actorId: id, "cancel", args: [first])) == true)
            #expect(try Self.output(await server.httpAction(actorId: id, "cancel", args: [first])) == false)
            try await waitUntil("the marker fired") { recorder.count("marker") == 1 }
            #expect(recorder.count("cancelled") == 0)
            #expect(try Self.output(await server.httpAction(actorId: id, "fired")) == ["marker"])
        }
    }

    @Test("list shows the pending one-shots, earliest first, with id, action, args and run time")
    func listsPending() async throws {
        try await InProcessServer.with(registry: Self.registry(Recorder())) { server in
            let id = try await Self.create(server, key: "list")
            let before = Int64(Date().timeIntervalSince1970 * 1000)
            let late = try Self.output(await server.httpAction(actorId: id, "later", args: [7_200_000, "late"]))
            let early = try Self.output(await server.httpAction(actorId: id, "later", args: [3_600_000, "early"]))
            let list = try Self.output(await server.httpAction(actorId: id, "list"))
            guard case .array(let entries) = list, entries.count == 2 else {
                Issue.record("expected two entries, got \(list)")
                return
            }
            #expect(entries[0]["id"] == early)
            #expect(entries[0]["action"] == "fire")
            #expect(entries[0]["args"] == ["early"])
            #expect(entries[1]["id"] == late)
            let runAt = entries[0]["runAt"]?.int64Value ?? 0
            #expect(runAt >= before + 3_600_000 && runAt <= before + 3_660_000)
            _ = try Self.output(await server.httpAction(actorId: id, "cancel", args: [early]))
            let after = try Self.output(await server.httpAction(actorId: id, "list"))
            #expect(after.arrayValue?.map { $0["id"] } == [late])
        }
    }

    @Test("A schedule made before a restart fires after it, exactly once, waking the not-yet-loaded actor")
    func firesAfterRestart() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("schedules-\(UUID().uuidString).sqlite").path
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        let before = Recorder()
        var id = ""
        try await InProcessServer.with(registry: Self.registry(before), store: try SQLiteActorStore(path: path)) { server in
            id = try await Self.create(server, key: "restart")
            let at = Int64(Date().timeIntervalSince1970 * 1000) + 1_500
            _ = try Self.output(await server.httpAction(actorId: id, "atTime", args: [.integer(at), "survivor"]))
        }
        #expect(before.count("survivor") == 0)
        let after = Recorder()
        try await InProcessServer.with(registry: Self.registry(after), store: try SQLiteActorStore(path: path)) { server in
            #expect(await server.core.directory.awakeIds.isEmpty)
            try await waitUntil("the schedule fired after the restart") { after.count("survivor") == 1 }
            #expect(await server.core.directory.awakeIds == [id])
            #expect(try await Self.pending(server) == nil)
            #expect(try Self.output(await server.httpAction(actorId: id, "fired")) == ["survivor"])
        }
        // A third server finds nothing left to fire.
        let third = Recorder()
        try await InProcessServer.with(registry: Self.registry(third), store: try SQLiteActorStore(path: path)) { server async throws in
            #expect(try await Self.pending(server) == nil)
            #expect(try Self.output(await server.httpAction(actorId: id, "fired")) == ["survivor"])
        }
        #expect(after.count("survivor") == 1 && third.count("survivor") == 0)
    }

    @Test("A sleeping actor is woken for its schedule")
    func wakesSleeping() async throws {
        let recorder = Recorder()
        try await InProcessServer.with(registry: Self.registry(recorder)) { server in
            let id = try await Self.create(server, key: "sleeper")
            _ = try Self.output(await server.httpAction(actorId: id, "later", args: [400, "alarm"]))
            #expect(await server.core.directory.sleepIdle(now: .now + .seconds(3600)) == 1)
            try await waitUntil("the actor slept") { await server.core.directory.awakeIds.isEmpty }
            try await waitUntil("the schedule fired") { recorder.count("alarm") == 1 }
            #expect(recorder.count("wake") == 2)
            #expect(await server.core.directory.awakeIds == [id])
        }
    }

    @Test("Destroying an actor removes its schedules")
    func destroyRemoves() async throws {
        try await InProcessServer.with(registry: Self.registry(Recorder())) { server in
            let id = try await Self.create(server, key: "doomed")
            let other = try await Self.create(server, key: "other")
            _ = try Self.output(await server.httpAction(actorId: id, "later", args: [3_600_000, "never"]))
            _ = try Self.output(await server.httpAction(actorId: other, "later", args: [7_200_000, "kept"]))
            #expect(await server.request(.DELETE, "/actors/\(id)").status == 200)
            let store = try #require(server.core.directory.scheduler.store)
            #expect(try await store.schedules(actorId: id).isEmpty)
            #expect(try await store.schedules(actorId: other).map(\.action) == ["fire"])
        }
    }

    @Test("maxSchedules bounds an actor's pending schedules (schedule.max_schedules_exceeded); a delay out of range is schedule.invalid_time")
    func limits() async throws {
        try await InProcessServer.with(registry: Self.registry(Recorder()), configure: { $0.maxSchedules = 2 }) { server in
            let id = try await Self.create(server, key: "limits")
            _ = try Self.output(await server.httpAction(actorId: id, "later", args: [3_600_000, "a"]))
            _ = try Self.output(await server.httpAction(actorId: id, "later", args: [3_600_000, "b"]))
            let third = try await server.httpAction(actorId: id, "later", args: [3_600_000, "c"])
            #expect(third.status == 400)
            #expect(third.body["group"] == "schedule" && third.body["code"] == "max_schedules_exceeded")
            let other = try await Self.create(server, key: "limits-other")
            let huge = try await server.httpAction(actorId: other, "later", args: [.integer(Int64.max), "x"])
            #expect(huge.body["group"] == "schedule" && huge.body["code"] == "invalid_time")
        }
    }
}
