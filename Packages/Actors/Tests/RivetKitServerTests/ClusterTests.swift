import Foundation
import PostgresNIO
import RivetKit
import RivetKitPostgres
@testable import RivetKitServer
import RpcDoTesting
import Synchronization
import Testing

/// Servers on loopback sharing one PostgreSQL database, each a node of one cluster.
enum Cluster {
    /// Runs `count` nodes (`n1`, `n2`, …) on one new database, with `lease` as their lease
    /// duration, and `body` with them; stops them all afterwards.
    static func with(
        nodes count: Int, lease: Duration = .seconds(2), configure: (inout ActorServerConfiguration) -> Void = { _ in },
        _ body: ([ActorServer]) async throws -> Void
    ) async throws {
        try await PostgresTestDatabase.with { url in
            try await start(url: url, index: 1, count: count, lease: lease, configure: configure, running: [], body)
        }
    }

    private static func start(
        url: String, index: Int, count: Int, lease: Duration, configure: (inout ActorServerConfiguration) -> Void,
        running: [ActorServer], _ body: ([ActorServer]) async throws -> Void
    ) async throws {
        guard index <= count else {
            try await body(running)
            return
        }
        try await PostgresActorStore.withStore(url: url, node: "n\(index)", leaseDuration: lease) { store in
            var configuration = ActorServerConfiguration(host: "127.0.0.1", port: 0)
            configure(&configuration)
            try await withActorServer(registry: DemoActors.registry, store: store, configuration: configuration) { server in
                try await start(
                    url: url, index: index + 1, count: count, lease: lease, configure: configure, running: running + [server], body)
            }
        }
    }

    /// A client of one node.
    static func client(_ server: ActorServer) -> RivetKitClient {
        var config = ClientConfig(endpoint: server.endpoint, token: nil, namespace: "default", disableMetadataLookup: true)
        config.reconnectBackoff = Backoff(initialDelay: .milliseconds(50), maxDelay: .milliseconds(500))
        return RivetKitClient(config)
    }
}

@Suite("Actors on several nodes: one owner per actor through a PostgreSQL lease, requests forwarded to it", .enabled(if: PostgresTestDatabase.isAvailable))
struct ClusterTests {
    @Test("An action through node A reaches the actor node B owns, with one state; a realtime connection through A gets B's events")
    func forwardsToTheOwner() async throws {
        try await Cluster.with(nodes: 2) { servers in
            let viaB = Cluster.client(servers[1])
            let viaA = Cluster.client(servers[0])
            #expect(try await viaB.getOrCreate("counter", key: ["shared"]).action("increment", args: [2]) == 2)
            #expect(await servers[1].awakeActorCount() == 1)
            // Through A: forwarded to B, which owns the actor; A wakes nothing.
            #expect(try await viaA.getOrCreate("counter", key: ["shared"]).action("increment", args: [3]) == 5)
            #expect(await servers[0].awakeActorCount() == 0)

            let connection = viaA.getOrCreate("counter", key: ["shared"]).connect()
            let events = connection.events("newCount")
            var iterator = events.makeAsyncIterator()
            connection.start()
            #expect(try await connection.action("getCount", args: []) == 5)
            _ = try await viaB.getOrCreate("counter", key: ["shared"]).action("increment", args: [1])
            #expect(await iterator.next() == [6])
            #expect(await servers[0].awakeActorCount() == 0)

            // Raw requests are forwarded too.
            let page = try await viaA.getOrCreate("counter", key: ["shared"]).fetch("/count")
            #expect(try JSONValue(parsing: page.text ?? "") == ["count": 6])
            await connection.dispose()
            await viaA.close()
            await viaB.close()
        }
    }

    @Test("An actor that went to sleep on one node wakes on the node the next request reaches, with its state")
    func movesAfterSleep() async throws {
        try await Cluster.with(nodes: 2, configure: { $0.sleepTimeout = .milliseconds(100) }) { servers in
            let viaA = Cluster.client(servers[0])
            let viaB = Cluster.client(servers[1])
            #expect(try await viaA.getOrCreate("counter", key: ["mover"]).action("increment", args: [4]) == 4)
            try await waitUntil("the actor to sleep on A") { await servers[0].awakeActorCount() == 0 }
            #expect(try await viaB.getOrCreate("counter", key: ["mover"]).action("increment", args: [1]) == 5)
            #expect(await servers[1].awakeActorCount() == 1)
            await viaA.close()
            await viaB.close()
        }
    }

    @Test("Leases: one holder until expiry, taken over after it; a release from an older taking leaves a newer one; renewals report what was lost")
    func leaseRules() async throws {
        try await PostgresTestDatabase.with { url in
            try await PostgresActorStore.withStore(url: url, node: "a", leaseDuration: .seconds(1)) { a in
                try await PostgresActorStore.withStore(url: url, node: "b", leaseDuration: .seconds(1)) { b in
                    guard case .held(let first) = try await a.acquireLease(actorId: "x", endpoint: "http://a") else {
                        Issue.record("a could not take a free lease")
                        return
                    }
                    #expect(try await b.acquireLease(actorId: "x", endpoint: "http://b") == .heldElsewhere(ActorLeaseHolder(nodeId: "a", endpoint: "http://a")))
                    // a takes it again (a new taking), then the release of the first taking arrives.
                    guard case .held = try await a.acquireLease(actorId: "x", endpoint: "http://a") else {
                        Issue.record("a could not extend its own lease")
                        return
                    }
                    try await a.releaseLease(actorId: "x", token: first)
                    if case .held = try await b.acquireLease(actorId: "x", endpoint: "http://b") {
                        Issue.record("b took a lease a still holds")
                    }
                    #expect(try await a.renewLeases(actorIds: ["x", "y"]) == ["y"])
                    // Once a's lease has expired, b takes it and a's renewal reports it lost.
                    try await waitUntil("a's lease to expire", timeout: .seconds(10), every: .milliseconds(100)) {
                        if case .held = try await b.acquireLease(actorId: "x", endpoint: "http://b") { return true }
                        return false
                    }
                    #expect(try await a.renewLeases(actorIds: ["x"]) == ["x"])
                    await #expect(throws: ActorError.self) { try await a.saveState(id: "x", state: [:]) }
                }
            }
        }
    }

    @Test("A node that loses an actor's lease stops serving it, and its save is refused; the next request wakes it where it is served")
    func lostLeaseStopsServing() async throws {
        try await Cluster.with(nodes: 2, lease: .seconds(1)) { servers in
            let viaA = Cluster.client(servers[0])
            let viaB = Cluster.client(servers[1])
            let counter = viaA.getOrCreate("counter", key: ["stolen"])
            #expect(try await counter.action("increment", args: [1]) == 1)
            let id = try await counter.resolve()
            guard let storeA = servers[0].core.directory.placement?.store as? PostgresActorStore else {
                Issue.record("node A has no lease store")
                return
            }
            // Another node takes the lease behind A's back (as after A failed to renew in time).
            try await storeA.client.query("UPDATE rivet_lease SET node = 'n2', endpoint = \(servers[1].endpoint)")
            await #expect(throws: ActorError.self) { try await storeA.saveState(id: id, state: ["count": 99]) }
            try await waitUntil("A to stop serving the actor") { await servers[0].awakeActorCount() == 0 }
            // Through A the request now goes to B, which wakes the actor from its last save.
            #expect(try await counter.action("increment", args: [1]) == 2)
            #expect(await servers[1].awakeActorCount() == 1)
            await viaA.close()
            await viaB.close()
        }
    }
}

@Suite("A cluster of rivetkit serve processes: a node killed with SIGKILL loses nothing answered", .enabled(if: PostgresTestDatabase.isAvailable && CommandProcess.isBuilt("rivetkit")))
struct ClusterProcessTests {
    /// What the realtime connection saw.
    final class Seen: Sendable {
        let counts = Mutex<[Int]>([])
    }

    @Test("The owner killed mid-flood: after its lease the actor answers from another node with every answered increment kept, the realtime connection goes on through a surviving node, and a schedule set before the kill fires once")
    func ownerKilled() async throws {
        try await PostgresTestDatabase.with { url in
            var nodes: [CommandProcess] = []
            defer { for node in nodes { node.kill() } }
            for index in 1 ... 3 {
                nodes.append(try await CommandProcess.start("rivetkit", [
                    "serve", "--demo", "--port", "0", "--postgres", url, "--node-id", "n\(index)", "--lease-duration", "1",
                ], announcing: ["READY"]))
            }
            func client(_ node: CommandProcess) -> RivetKitClient {
                var config = ClientConfig(endpoint: node.announcement("READY") ?? "-", token: nil, namespace: "default", disableMetadataLookup: true)
                config.reconnectBackoff = Backoff(initialDelay: .milliseconds(50), maxDelay: .milliseconds(300))
                return RivetKitClient(config)
            }
            let viaA = client(nodes[0])
            let viaB = client(nodes[1])
            let viaC = client(nodes[2])
            // The actor wakes on B, which owns it from now on.
            #expect(try await viaB.getOrCreate("counter", key: ["flood"]).action("getCount", args: []) == 0)
            // A schedule, due after the kill.
            _ = try await viaA.getOrCreate("counter", key: ["flood"]).action("scheduleIncrement", args: [1_000, 2_500])

            let seen = Seen()
            let connection = viaC.getOrCreate("counter", key: ["flood"]).connect()
            let events = connection.events("newCount")
            connection.start()
            #expect(try await connection.action("getCount", args: []) == 0)
            let listening = Task {
                for await args in events {
                    if case .integer(let count)? = args.first { seen.counts.withLock { $0.append(Int(count)) } }
                }
            }

            let counter = viaA.getOrCreate("counter", key: ["flood"])
            var answered = 0
            var sent = 0
            var killedAt: Int?
            let deadline = ContinuousClock.now + .seconds(60)
            while answered < 200, ContinuousClock.now < deadline {
                if answered == 50, killedAt == nil {
                    nodes[1].kill()
                    killedAt = answered
                }
                sent += 1
                do throws(ActorError) {
                    _ = try await counter.action("increment", args: [1])
                    answered += 1
                } catch {
                    try await Task.sleep(for: .milliseconds(50))
                }
            }
            #expect(answered == 200)
            // The schedule fires once, on whichever node holds the actor by then.
            try await waitUntil("the schedule to fire", timeout: .seconds(30)) {
                let count = try await viaA.getOrCreate("counter", key: ["flood"]).action("getCount", args: [])
                guard case .integer(let value) = count else { return false }
                return value >= 1_000
            }
            guard case .integer(let final) = try await viaC.getOrCreate("counter", key: ["flood"]).action("getCount", args: []) else {
                Issue.record("getCount is not a number")
                return
            }
            // Every answered increment is kept; an unanswered one may have been applied before the
            // kill; the schedule added 1,000 once.
            #expect(final - 1_000 >= answered && final - 1_000 <= sent)
            // The realtime connection reconnected through C and saw counts from after the kill.
            try await waitUntil("the connection to see the count after the kill", timeout: .seconds(30)) {
                seen.counts.withLock { $0.contains { $0 > 1_000 } }
            }
            listening.cancel()
            await connection.dispose()
            await viaA.close()
            await viaB.close()
            await viaC.close()
            for node in [nodes[0], nodes[2]] {
                node.terminate()
                #expect(await node.waitForExit() == 0)
            }
        }
    }
}
