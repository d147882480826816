import NIOHTTP1
import RivetKit
@testable import RivetKitServer
import RpcTesting
import Synchronization
import Testing

@Suite("Actions whose body does not suspend")
struct ImmediateActionTests {
    /// A store whose saves fail while ``failing`` is set.
    final class FlakyStore: ActorStore {
        let base: SQLiteActorStore
        let failing = Mutex(false)

        init() throws {
            base = try SQLiteActorStore.inMemory()
        }

        func actor(namespace: String, name: String, key: [String]) async throws -> StoredActor? {
            try await base.actor(namespace: namespace, name: name, key: key)
        }

        func actor(id: String) async throws -> StoredActor? {
            try await base.actor(id: id)
        }

        func insert(_ actor: StoredActor) async throws -> (actor: StoredActor, inserted: Bool) {
            try await base.insert(actor)
        }

        func saveState(id: String, state: JSONValue) async throws {
            struct Refused: Error {}
            if failing.withLock({ $0 }) { throw Refused() }
            try await base.saveState(id: id, state: state)
        }

        func delete(id: String) async throws -> Bool {
            try await base.delete(id: id)
        }
    }

    /// `tally`: `read` and `add(by)` do not suspend, `addThenFail(by)` changes the state and
    /// throws, `hold` waits at `gate` and then adds 10.
    static func registry(gate: ServerLimitTests.Gate = ServerLimitTests.Gate()) -> ActorRegistry {
        var registry = ActorRegistry()
        registry.register(
            ActorDefinition("tally", initialState: 0)
                .action("read") { context in context.state }
                .action("add") { (context: inout ActorContext<Int>, by: Int) in
                    context.state += by
                    return context.state
                }
                .action("addThenFail") { (context: inout ActorContext<Int>, by: Int) -> Int in
                    context.state += by
                    throw ActorError(group: "user", code: "refused", message: "not this time")
                }
                .action("hold") { (context: inout ActorContext<Int>) in
                    await gate.pass()
                    context.state += 10
                    return context.state
                })
        return registry
    }

    static func path(_ key: String) -> String {
        "/gateway/tally/connect?rvt-namespace=default&rvt-method=getOrCreate&rvt-key=\(key)"
    }

    @Test("A body without await is performed immediately, one with await is not, and a missing action is neither")
    func overloadChoice() {
        guard let definition = Self.registry().behaviors["tally"] else {
            Issue.record("the tally type is registered")
            return
        }
        #expect(definition.performsImmediately("read"))
        #expect(definition.performsImmediately("add"))
        #expect(definition.performsImmediately("addThenFail"))
        #expect(!definition.performsImmediately("hold"))
        #expect(!definition.performsImmediately("missing"))
    }

    @Test("An immediate action that changes the state is answered once the state is saved: a failed save fails it and the state stays")
    func changedStateIsSavedBeforeTheAnswer() async throws {
        let store = try FlakyStore()
        try await InProcessServer.with(registry: Self.registry(), store: store) { server in
            let socket = try await server.connectRaw(Self.path("saved"))
            _ = try await socket.initialized()
            #expect(try await socket.call(1, "add", [2]) == 2)
            store.failing.withLock { $0 = true }
            let error = await #expect(throws: ActorError.self) { try await socket.call(2, "add", [3]) }
            #expect(error?.group == "rivetkit")
            #expect(error?.code == "internal_error")
            store.failing.withLock { $0 = false }
            #expect(try await socket.call(3, "read") == 2)
            #expect(try await socket.call(4, "add", [5]) == 7)
            await socket.transport.close(code: .normal, reason: "Disposed")
        }
    }

    @Test("Over HTTP too, an immediate action that changes the state is answered once it is saved: a failed save is a 500 and the state stays")
    func changedStateIsSavedBeforeTheHTTPAnswer() async throws {
        let store = try FlakyStore()
        try await InProcessServer.with(registry: Self.registry(), store: store) { server in
            let body: JSONValue = ["name": "tally", "key": .string(ActorKey.serialize(["over-http"]))]
            let (status, text) = await server.request(.PUT, "/actors", json: body.description)
            #expect(status == 200)
            guard case .string(let id)? = try JSONValue(parsing: text)["actor"]?["actor_id"] else {
                Issue.record("the actor was created: \(text)")
                return
            }
            #expect(try await server.httpAction(actorId: id, "add", args: [2]).body == ["output": 2])
            store.failing.withLock { $0 = true }
            let failed = try await server.httpAction(actorId: id, "add", args: [3])
            #expect(failed.status == 500)
            #expect(failed.body["code"] == "internal_error")
            store.failing.withLock { $0 = false }
            #expect(try await server.httpAction(actorId: id, "read").body == ["output": 2])
        }
    }

    @Test("An immediate action that throws is answered its error and leaves the state as it was")
    func throwingActionKeepsTheState() async throws {
        try await InProcessServer.with(registry: Self.registry()) { server in
            let socket = try await server.connectRaw(Self.path("throws"))
            _ = try await socket.initialized()
            #expect(try await socket.call(1, "add", [4]) == 4)
            let error = await #expect(throws: ActorError.self) { try await socket.call(2, "addThenFail", [100]) }
            #expect(error?.group == "user")
            #expect(error?.code == "refused")
            #expect(try await socket.call(3, "read") == 4)
            await socket.transport.close(code: .normal, reason: "Disposed")
        }
    }

    @Test("An immediate action sent while another connection's suspended action holds the actor waits its turn and reads that action's state")
    func waitsForTheActionHoldingTheActor() async throws {
        let gate = ServerLimitTests.Gate()
        try await InProcessServer.with(registry: Self.registry(gate: gate)) { server in
            let holder = try await server.connectRaw(Self.path("held"))
            _ = try await holder.initialized()
            let reader = try await server.connectRaw(Self.path("held"))
            _ = try await reader.initialized()
            try await holder.send(.actionRequest(id: 1, name: "hold", args: []))
            try await waitUntil("the hold action waits at the gate") { gate.waiting == 1 }
            try await reader.send(.actionRequest(id: 2, name: "add", args: [1]))
            try await reader.send(.actionRequest(id: 3, name: "read", args: []))
            gate.open()
            #expect(try await holder.nextMessage() == .actionResponse(id: 1, output: 10))
            #expect(try await reader.nextMessage() == .actionResponse(id: 2, output: 11))
            #expect(try await reader.nextMessage() == .actionResponse(id: 3, output: 11))
            await holder.transport.close(code: .normal, reason: "Disposed")
            await reader.transport.close(code: .normal, reason: "Disposed")
        }
    }
}
