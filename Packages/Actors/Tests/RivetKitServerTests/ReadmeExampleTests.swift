import Foundation
import RivetKit
@testable import RivetKitServer
import RpcDoTesting
import Testing

/// The server example of the README ("RivetKit actors in a minute"), as written there.
enum ReadmeActors {
    struct Counter: Codable, Sendable { var count = 0 }
    struct Caller: Sendable { var user: String? }

    static var registry: ActorRegistry {
        let counter = ActorDefinition("counter", initialState: Counter())
            .createVars { _ in Date() }                         // per instance, made on each wake
            .createConnState { (_, params: JSONValue) in Caller(user: params["user"]?.stringValue) }
            .action("increment") { (context: inout ActorContext<Counter>, by: Int) in
                context.state.count += by                    // saved in SQLite before the answer
                try context.broadcast("newCount", context.state.count)
                return context.state.count
            }
            .action("later") { (context: inout ActorContext<Counter>, by: Int) async throws in
                try await context.schedule.after(.seconds(5), "increment", by)   // kept across restarts
            }
            .action("whoAmI") { context in try context.connection.state(as: Caller.self).user }
            .onSleep { context in print("\(context.key) sleeps: no connection for 30 s") }
            .onRequest { context, request in                 // handle.fetch("/count")
                request.path == "/count" ? try .json(["count": try context.state().count]) : ActorResponse(status: 404)
            }
        let forwarder = ActorDefinition("forwarder", initialState: 0)
            .action("bump") { (context: inout ActorContext<Int>, key: String) async throws -> Int in
                try await context.client.getOrCreate("counter", key: [key]).action("increment", arguments: [1])
            }
        var registry = ActorRegistry()
        registry.register(counter)
        registry.register(forwarder)
        return registry
    }
}

@Suite("The README's actor example")
struct ReadmeExampleTests {
    @MainActor
    @Test("The README's actors answer as it says: bump through the forwarder, fetch /count, whoAmI from the params, later makes a schedule")
    func readmeActors() async throws {
        try await InProcessServer.with(registry: ReadmeActors.registry) { server in
            let client = server.client()
            #expect(try await client.getOrCreate("forwarder", key: ["f"]).action("bump", args: ["mine"]) == 1)
            let counter = client.getOrCreate("counter", key: ["mine"], params: ["user": "ann"])
            #expect(try await counter.action("whoAmI", args: []) == "ann")
            let page = try await counter.fetch("/count")
            #expect(try JSONValue(parsing: page.text ?? "") == ["count": 1])
            #expect(try await counter.fetch("/other").status == 404)
            guard case .string = try await counter.action("later", args: [2]) else {
                Issue.record("later did not answer a schedule id")
                return
            }
            // The client lines of the README compile as written.
            let actor = ActorObservable(
                client: client, options: ActorOptions(name: "counter", key: "my-counter", params: ["user": "ann"]))
            let count: Int = try await actor.action("increment", 1)
            #expect(count == 1)
            actor.release()
            await client.close()
        }
    }
}
