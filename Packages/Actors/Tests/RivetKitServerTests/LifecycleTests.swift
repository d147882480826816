import Foundation
import NIOHTTP1
import RivetKit
@testable import RivetKitServer
import RpcDoTesting
import Testing

@Suite("Actor lifecycle: hooks in RivetKit's order, vars, sleep and wake")
struct LifecycleTests {
    /// A time past any sleep timeout the tests use: the idle rule decides alone.
    static var later: ContinuousClock.Instant { .now + .seconds(3600) }

    @Test("Hooks run in RivetKit's order: create, connection, state change, sleep, wake, destroy")
    func hookOrder() async throws {
        let probe = ProbeActor()
        try await InProcessServer.with(registry: probe.registry()) { server in
            let id = try await ProbeActor.create(server, key: "order")
            #expect(probe.events == ["onCreate", "onStateChange 0", "createVars", "onWake 1"])
            probe.reset()

            #expect(try await server.httpAction(actorId: id, "increment", args: [2]).body == ["output": 2])
            #expect(probe.events == [
                "onBeforeConnect", "createConnState", "onConnect anonymous", "increment", "onStateChange 2",
                "onDisconnect anonymous",
            ])
            probe.reset()

            #expect(await server.core.directory.sleepIdle(now: Self.later) == 1)
            try await waitUntil("the actor has slept") { await server.core.directory.awakeIds.isEmpty && probe.events == ["onSleep 2"] }
            probe.reset()

            #expect(try await server.httpAction(actorId: id, "getCount").body == ["output": 2])
            #expect(probe.events == [
                "createVars", "onWake 2", "onBeforeConnect", "createConnState", "onConnect anonymous",
                "onDisconnect anonymous",
            ])
            probe.reset()

            #expect(await server.request(.DELETE, "/actors/\(id)").status == 200)
            #expect(probe.events == ["onDestroy"])
        }
    }

    @Test("An idle actor sleeps after its sleepTimeout; the next action wakes it with its state intact and new vars")
    func sleepAndWake() async throws {
        let probe = ProbeActor()
        let registry = probe.registry(ActorDefinitionOptions(sleepTimeout: .milliseconds(50)))
        try await InProcessServer.with(registry: registry) { server in
            let id = try await ProbeActor.create(server, key: "sleepy")
            #expect(try await server.httpAction(actorId: id, "increment", args: [5]).body == ["output": 5])
            let before = try #require(try await server.httpAction(actorId: id, "generation").body["output"]?.intValue)
            _ = try await server.httpAction(actorId: id, "hit")
            #expect(try await server.httpAction(actorId: id, "hit").body["output"]?.intValue ?? 0 >= 2)

            try await waitUntil("the actor sleeps by itself") {
                await server.core.directory.awakeIds.isEmpty && probe.events.contains("onSleep 5")
            }
            #expect(try await server.httpAction(actorId: id, "getCount").body == ["output": 5])
            #expect(try await server.httpAction(actorId: id, "created").body == ["output": true])
            let after = try #require(try await server.httpAction(actorId: id, "generation").body["output"]?.intValue)
            #expect(after > before)
            #expect(probe.events.contains("onWake \(after)"))
            // The vars are the new instance's: its hit counter starts again.
            #expect(try await server.httpAction(actorId: id, "hit").body == ["output": 1])
            #expect(probe.events.filter { $0 == "onCreate" }.count == 1)
        }
    }

    @Test("A realtime connection keeps its actor awake; once it closes the actor may sleep")
    func connectionKeepsAwake() async throws {
        let probe = ProbeActor()
        try await InProcessServer.with(registry: probe.registry()) { server in
            let socket = try await server.connectRaw(ProbeActor.connectPath(key: "held"))
            _ = try await socket.initialized()
            #expect(await server.core.directory.sleepIdle(now: Self.later) == 0)
            await socket.transport.close(code: .normal, reason: "")
            try await waitUntil("the actor may sleep") { await server.core.directory.sleepIdle(now: Self.later) == 1 }
        }
    }

    @Test("keepAwake work keeps an idle actor awake until it ends; noSleep keeps it for good")
    func keepAwakeAndNoSleep() async throws {
        let probe = ProbeActor()
        try await InProcessServer.with(registry: probe.registry()) { server in
            let id = try await ProbeActor.create(server, key: "busy")
            #expect(try await server.httpAction(actorId: id, "hold").body == ["output": true])
            #expect(await server.core.directory.sleepIdle(now: Self.later) == 0)
            probe.gate.open()
            try await waitUntil("the actor may sleep") { await server.core.directory.sleepIdle(now: Self.later) == 1 }
        }
        let awake = ProbeActor()
        try await InProcessServer.with(registry: awake.registry(ActorDefinitionOptions(noSleep: true))) { server in
            _ = try await ProbeActor.create(server, key: "insomniac")
            #expect(await server.core.directory.sleepIdle(now: Self.later) == 0)
            #expect(await server.core.directory.awakeIds.count == 1)
        }
    }

    @Test("runInBackground work does not keep the actor awake, but its sleep finishes only once the work has")
    func backgroundWork() async throws {
        let probe = ProbeActor()
        try await InProcessServer.with(registry: probe.registry()) { server in
            let id = try await ProbeActor.create(server, key: "background")
            #expect(try await server.httpAction(actorId: id, "background").body == ["output": true])
            #expect(await server.core.directory.sleepIdle(now: Self.later) == 1)
            try await waitUntil("onSleep has run") { probe.events.contains("onSleep 0") }
            // The wake waits for the sleep, which waits for the work.
            let woken = Task { try await server.httpAction(actorId: id, "generation").body }
            probe.gate.open()
            #expect(try await woken.value == ["output": 2])
            let events = probe.events
            let done = try #require(events.firstIndex(of: "background done"))
            let wake = try #require(events.firstIndex(of: "onWake 2"))
            #expect(done < wake)
        }
    }

    @Test("A creation whose onCreate throws is refused with that error and leaves no actor")
    func failedCreation() async throws {
        var registry = ActorRegistry()
        registry.register(
            ActorDefinition("fragile", initialState: 0)
                .onCreate { _ in throw ActorError(group: "user", code: "no_room", message: "full") }
                .action("get") { context in context.state })
        try await InProcessServer.with(registry: registry) { (server: InProcessServer) async throws in
            let body: JSONValue = ["name": "fragile", "key": .string(ActorKey.serialize(["one"]))]
            let (status, text) = await server.request(.PUT, "/actors", json: body.description)
            #expect(status == 400)
            #expect(try JSONValue(parsing: text)["code"] == "no_room")
            let listed = await server.request(.GET, "/actors?name=fragile&key=\(ActorKey.serialize(["one"]))")
            #expect(try JSONValue(parsing: listed.body)["actors"] == [])
        }
    }

    @Test("A request that arrives while the actor falls asleep waits for onSleep and wakes it anew")
    func requestDuringSleep() async throws {
        let probe = ProbeActor()
        var registry = ActorRegistry()
        let gate = ServerLimitTests.Gate()
        registry.register(
            probe.definition(ActorDefinitionOptions())
                .onSleep { context in
                    await gate.pass()
                    context.state.count += 100
                })
        try await InProcessServer.with(registry: registry) { server in
            let id = try await ProbeActor.create(server, key: "drowsy")
            #expect(await server.core.directory.sleepIdle(now: Self.later) == 1)
            try await waitUntil("onSleep is running") { gate.waiting == 1 }
            let answer = Task { try await server.httpAction(actorId: id, "getCount").body }
            gate.open()
            // The state onSleep left is the one the woken instance starts from.
            #expect(try await answer.value == ["output": 100])
        }
    }
}

@Suite("ActorLifecycle: the phases and the idle rule")
struct ActorLifecycleStateTests {
    let start = ContinuousClock.now

    @Test("An instance may sleep only awake, unheld, allowed to, and idle for its timeout")
    func idleRule() {
        var lifecycle = ActorLifecycle(now: start, sleepTimeout: .seconds(10), noSleep: false)
        #expect(!lifecycle.canSleep(now: start + .seconds(60)))  // still starting
        lifecycle.started(now: start)
        #expect(!lifecycle.canSleep(now: start + .seconds(9)))
        #expect(lifecycle.canSleep(now: start + .seconds(10)))
        let held = lifecycle.enter()
        #expect(held)
        #expect(!lifecycle.canSleep(now: start + .seconds(60)))
        lifecycle.leave(now: start + .seconds(20))
        #expect(!lifecycle.canSleep(now: start + .seconds(29)))
        let sleeping = lifecycle.beginSleep(now: start + .seconds(30))
        #expect(sleeping)
        #expect(lifecycle.phase == .stopping(.sleep))
        let enteredWhileSleeping = lifecycle.enter()
        #expect(!enteredWhileSleeping)
        let destroyedWhileSleeping = lifecycle.beginDestroy()
        #expect(!destroyedWhileSleeping)
        lifecycle.stopped()
        #expect(lifecycle.phase == .stopped(.sleep))

        var insomniac = ActorLifecycle(now: start, sleepTimeout: .zero, noSleep: true)
        insomniac.started(now: start)
        let slept = insomniac.beginSleep(now: start + .seconds(3600))
        #expect(!slept)
    }

    @Test("Destroy is taken once, refuses new work, and a destroyed instance never sleeps")
    func destroy() {
        var lifecycle = ActorLifecycle(now: start, sleepTimeout: .zero, noSleep: false)
        lifecycle.started(now: start)
        let first = lifecycle.beginDestroy()
        #expect(first)
        let second = lifecycle.beginDestroy()
        #expect(!second)
        #expect(lifecycle.isDestroyed)
        let entered = lifecycle.enter()
        #expect(!entered)
        let slept = lifecycle.beginSleep(now: start + .seconds(1))
        #expect(!slept)
        lifecycle.stopped()
        #expect(lifecycle.phase == .stopped(.destroy))
        #expect(lifecycle.isDestroyed)
    }
}
