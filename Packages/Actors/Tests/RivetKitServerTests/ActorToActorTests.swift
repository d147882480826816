import RivetKit
@testable import RivetKitServer
import RpcDoTesting
import Synchronization
import Testing

@Suite("Actor-to-actor calls: context.client reaches the other actors of the server, in process")
struct ActorToActorTests {
    @Test("The demo forwarder's incrementCounter calls the counter of that key, whose state and events show it")
    func forwarderIncrementsCounter() async throws {
        try await InProcessServer.with { server in
            let client = server.client()
            let counter = client.getOrCreate("counter", key: ["shared"])
            let connection = counter.connect()
            let counts = connection.events("newCount")
            var iterator = counts.makeAsyncIterator()
            connection.start()
            // Answered on the same socket after the subscription was sent: the events that
            // follow reach the connection.
            #expect(try await connection.action("getCount", args: []) == 0)

            let forwarder = client.getOrCreate("forwarder", key: ["f"])
            let first: Int = try await forwarder.action("incrementCounter", arguments: ["shared", 4])
            let second: Int = try await forwarder.action("incrementCounter", arguments: ["shared", 3])
            #expect(first == 4 && second == 7)
            #expect(await iterator.next() == [4])
            #expect(await iterator.next() == [7])
            #expect(try await counter.action("getCount", args: []) == 7)
            #expect(try await forwarder.action("forwarded", args: []) == 2)
            // Another key is another counter, made on first use.
            let other: Int = try await forwarder.action("incrementCounter", arguments: ["other", 1])
            #expect(other == 1)
            await connection.dispose()
            await client.close()
        }
    }

    @Test("The called actor's error comes back as the caller's, and the caller's state change is not kept")
    func errorsPropagate() async throws {
        try await InProcessServer.with { server in
            let client = server.client()
            let forwarder = client.getOrCreate("forwarder", key: ["f"])
            _ = try await forwarder.action("incrementCounter", args: ["edge", .integer(Int64(Int.max))])
            await #expect(throws: ActorError.self) {
                _ = try await forwarder.action("incrementCounter", args: ["edge", 1])
            }
            do throws(ActorError) {
                _ = try await forwarder.action("incrementCounter", args: ["edge", 1])
            } catch {
                #expect(error.group == "user" && error.code == "overflow")
            }
            #expect(try await forwarder.action("forwarded", args: []) == 1)
            await client.close()
        }
    }

    @Test("An actor holds a realtime connection to another through context.client and gets its events; the server's stop closes it")
    func realtimeConnectionBetweenActors() async throws {
        let received = Mutex<[JSONValue]>([])
        var registry = DemoActors.registry
        registry.register(
            ActorDefinition("watcher", initialState: 0)
                .onWake { (context: inout ActorLifecycleContext<Int>) in
                    let connection = context.client.getOrCreate("counter", key: ["watched"]).connect()
                    let events = connection.events("newCount")
                    connection.start()
                    context.runInBackground {
                        for await args in events { received.withLock { $0 += args } }
                        await connection.dispose()
                    }
                }
                .action("start") { _ in true })
        try await InProcessServer.with(registry: registry) { server in
            let client = server.client()
            #expect(try await client.getOrCreate("watcher", key: ["w"]).action("start", args: []) == true)
            let counter = client.getOrCreate("counter", key: ["watched"])
            // The watcher's subscription may not be in place at the first increment: increment
            // until it has seen one, then once more and look for that count.
            try await waitUntil("the watcher's first event", every: .milliseconds(20)) {
                _ = try await counter.action("increment", args: [1])
                return !received.withLock { $0.isEmpty }
            }
            let now = try await counter.action("increment", args: [1])
            try await waitUntil("the watcher's event of count \(now)") { received.withLock { $0.last == now } }
            await client.close()
        }
    }

    @Test("A call to a missing actor through get is actor.not_found in the caller")
    func missingActor() async throws {
        var registry = DemoActors.registry
        registry.register(
            ActorDefinition("asker", initialState: 0)
                .action("ask") { (context: inout ActorContext<Int>) async throws(ActorError) -> Int in
                    try await context.client.get("counter", key: ["nobody"]).action("getCount", arguments: [])
                })
        try await InProcessServer.with(registry: registry) { server in
            let client = server.client()
            do throws(ActorError) {
                _ = try await client.getOrCreate("asker", key: ["a"]).action("ask", args: [])
                Issue.record("the call succeeded")
            } catch {
                #expect(error.group == "actor" && error.code == "not_found")
            }
            await client.close()
        }
    }
}
