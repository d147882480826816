import Foundation
import RivetKit
import RivetKitPostgres
@testable import RivetKitServer
import RpcDoTesting
import Testing

/// The stores a contract test runs against: SQLite always, PostgreSQL when a cluster is given.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }

    /// The kinds available here: PostgreSQL needs `RPC_POSTGRES_URL` (`make test-all` sets it).
    static var available: [StoreKind] {
        PostgresTestDatabase.isAvailable ? allCases : [.sqlite]
    }

    /// Runs `body` with a new, empty store of this kind.
    func with<T: Sendable>(_ body: (any ActorScheduleStore) async throws -> T) async throws -> T {
        switch self {
        case .sqlite:
            return try await body(try SQLiteActorStore.inMemory())
        case .postgres:
            return try await PostgresTestDatabase.with { url in
                try await PostgresActorStore.withStore(url: url) { store in try await body(store) }
            }
        }
    }
}

@Suite("Actor stores: SQLite and PostgreSQL keep the same contract")
struct PostgresStoreTests {
    private static func actor(_ id: String, key: [String], namespace: String = "default", state: JSONValue = ["count": 0])
        -> StoredActor
    {
        StoredActor(id: id, namespace: namespace, name: "counter", key: key, state: state, createdAt: 1_700_000_000_000)
    }

    @Test("PostgreSQL tests run wherever make test-all runs: the cluster URL is set", .enabled(if: ProcessInfo.processInfo.environment["RPC_REQUIRE_POSTGRES"] == "1"))
    func clusterIsGiven() {
        #expect(PostgresTestDatabase.isAvailable)
    }

    @Test("One key makes one actor: a second insert returns the first, found by key and by id; texts with NUL stay whole", arguments: StoreKind.available)
    func insertAndFind(kind: StoreKind) async throws {
        try await kind.with { store in
            let first = try await store.insert(Self.actor("a1", key: ["room", "x\u{0}y"]))
            #expect(first.inserted)
            let second = try await store.insert(Self.actor("a2", key: ["room", "x\u{0}y"], state: ["count": 9]))
            #expect(!second.inserted && second.actor.id == "a1" && second.actor.state == ["count": 0])
            // Texts that differ only after a NUL are different keys.
            #expect(try await store.insert(Self.actor("a3", key: ["room", "x\u{0}z"])).inserted)
            #expect(try await store.actor(namespace: "default", name: "counter", key: ["room", "x\u{0}y"])?.id == "a1")
            #expect(try await store.actor(namespace: "other", name: "counter", key: ["room", "x\u{0}y"]) == nil)
            let found = try await store.actor(id: "a1")
            #expect(found?.key == ["room", "x\u{0}y"] && found?.createdAt == 1_700_000_000_000)
            #expect(try await store.actor(id: "missing") == nil)
        }
    }

    @Test("A saved state is read back as saved; delete removes the actor and its schedules, once", arguments: StoreKind.available)
    func saveAndDelete(kind: StoreKind) async throws {
        try await kind.with { store in
            _ = try await store.insert(Self.actor("a1", key: ["k"]))
            try await store.saveState(id: "a1", state: ["count": 5, "text": "nul\u{0}inside", "list": [1, 2.5, true, nil]])
            #expect(try await store.actor(id: "a1")?.state == ["count": 5, "text": "nul\u{0}inside", "list": [1, 2.5, true, nil]])
            #expect(try await store.insertSchedule(
                StoredSchedule(id: "s1", actorId: "a1", action: "increment", args: [1], runAt: 10), limit: 10))
            #expect(try await store.delete(id: "a1"))
            #expect(try await store.actor(id: "a1") == nil)
            #expect(try await store.schedules(actorId: "a1").isEmpty)
            #expect(try await !store.delete(id: "a1"))
        }
    }

    @Test("Schedules: limit per actor, listed earliest first, cancelled once, next time, due ones claimed once", arguments: StoreKind.available)
    func schedules(kind: StoreKind) async throws {
        try await kind.with { store in
            _ = try await store.insert(Self.actor("a1", key: ["k"]))
            for (id, runAt) in [("s3", Int64(30)), ("s1", 10), ("s2", 20)] {
                #expect(try await store.insertSchedule(
                    StoredSchedule(id: id, actorId: "a1", action: "fire", args: [.string(id)], runAt: runAt), limit: 3))
            }
            #expect(try await !store.insertSchedule(
                StoredSchedule(id: "s4", actorId: "a1", action: "fire", args: [], runAt: 40), limit: 3))
            #expect(try await store.schedules(actorId: "a1").map(\.id) == ["s1", "s2", "s3"])
            #expect(try await store.nextScheduleTime() == 10)
            #expect(try await store.deleteSchedule(actorId: "a1", id: "s3"))
            #expect(try await !store.deleteSchedule(actorId: "a1", id: "s3"))
            #expect(try await !store.deleteSchedule(actorId: "other", id: "s2"))
            let due = try await store.claimDueSchedules(now: 20, limit: 10)
            #expect(due.map(\.id) == ["s1", "s2"] && due.first?.args == ["s1"])
            #expect(try await store.claimDueSchedules(now: 20, limit: 10).isEmpty)
            #expect(try await store.nextScheduleTime() == nil)
        }
    }

    @Test("Claims racing from several servers take each due schedule exactly once", arguments: StoreKind.available)
    func racingClaims(kind: StoreKind) async throws {
        try await kind.with { store in
            _ = try await store.insert(Self.actor("a1", key: ["k"]))
            for index in 0 ..< 200 {
                _ = try await store.insertSchedule(
                    StoredSchedule(id: "s\(index)", actorId: "a1", action: "fire", args: [], runAt: Int64(index)), limit: 1_000)
            }
            let claimed = try await withThrowingTaskGroup(of: [String].self, returning: [String].self) { group in
                for _ in 0 ..< 8 {
                    group.addTask {
                        var mine: [String] = []
                        while true {
                            let batch = try await store.claimDueSchedules(now: 1_000, limit: 7)
                            if batch.isEmpty { return mine }
                            mine += batch.map(\.id)
                        }
                    }
                }
                var all: [String] = []
                for try await ids in group { all += ids }
                return all
            }
            #expect(claimed.count == 200 && Set(claimed).count == 200)
        }
    }

    @Test("On PostgreSQL the demo counter keeps its count and a schedule made before a restart fires after it, exactly once", .enabled(if: PostgresTestDatabase.isAvailable))
    func serverOnPostgres() async throws {
        try await PostgresTestDatabase.with { url in
            var id = ""
            try await PostgresActorStore.withStore(url: url) { store in
                try await InProcessServer.with(store: store) { server in
                    id = try await RawProbe.create(server, name: "counter", key: "pg")
                    _ = try await server.httpAction(actorId: id, "increment", args: [4])
                    _ = try await server.httpAction(actorId: id, "scheduleIncrement", args: [3, 1_000])
                }
            }
            try await PostgresActorStore.withStore(url: url) { store in
                try await InProcessServer.with(store: store) { server in
                    try await waitUntil("the schedule fired after the restart") {
                        try await server.httpAction(actorId: id, "getCount").body == ["output": 7]
                    }
                    #expect(try await store.nextScheduleTime() == nil)
                }
            }
        }
    }

    @Test("A second server on the same PostgreSQL database is refused at once; once the first has stopped it may start", .enabled(if: PostgresTestDatabase.isAvailable))
    func oneServerPerDatabase() async throws {
        try await PostgresTestDatabase.with { url in
            try await PostgresActorStore.withStore(url: url) { _ in
                await #expect(throws: PostgresStoreError.self) {
                    try await PostgresActorStore.withStore(url: url) { _ in }
                }
            }
            try await PostgresActorStore.withStore(url: url) { _ in }
        }
    }
}
