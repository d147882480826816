// `make demo`, Actors step: an embedded actor server with the demo counter on 127.0.0.1, two
// clients on the same key seeing each other's events, a fire-and-forget send, an action error
// arriving typed, a scheduled increment firing, an actor calling another, an idle actor going to
// sleep and waking on the next action, `enabled` toggled off and on, and a server restart that
// keeps the count.
import Foundation
import RivetKit
import RivetKitServer
import RpcDoTesting

@MainActor
func runDemo() async throws {
    let database = FileManager.default.temporaryDirectory.appendingPathComponent("rivetkit-demo-\(UUID().uuidString).sqlite").path
    defer { try? FileManager.default.removeItem(atPath: database) }
    var configuration = ActorServerConfiguration(port: 0)
    // Short, so that the demo shows an idle actor going to sleep.
    configuration.sleepTimeout = .milliseconds(300)
    var port = 0
    var config = ClientConfig(endpoint: "http://127.0.0.1:1", token: nil, namespace: nil)
    config.reconnectBackoff = Backoff(initialDelay: .milliseconds(100), maxDelay: .seconds(1))
    var first: ActorObservable?
    var second: ActorObservable?
    var client: RivetKitClient?

    try await withActorServer(registry: DemoActors.registry, store: try SQLiteActorStore(path: database), configuration: configuration) {
        (server: ActorServer) async throws -> Void in
        port = server.port
        print("actors: server on \(server.endpoint) (counter, chat, forwarder)")
        config.endpoint = server.endpoint
        let shared = RivetKitClient(config)
        client = shared
        let alice = ActorObservable(client: shared, options: ActorOptions(name: "counter", key: ["demo"]))
        let bob = ActorObservable(client: RivetKitClient(config), options: ActorOptions(name: "counter", key: ["demo"]))
        first = alice
        second = bob
        var seenByBob = bob.events("newCount", as: Int.self).makeAsyncIterator()
        try await waitUntil("both are connected") { alice.isConnected && bob.isConnected }
        print("actors: two clients connected to counter[demo]")
        let count: Int = try await alice.action("increment", 5)
        print("actors: alice increment(5) -> \(count); bob saw newCount(\(await seenByBob.next() ?? -1))")
        alice.send("increment", 2)
        print("actors: alice send(increment, 2), fire and forget; bob saw newCount(\(await seenByBob.next() ?? -1))")
        do {
            let _: Int = try await alice.action("fail")
        } catch let error as ActorError {
            print("actors: fail() threw \(error.group).\(error.code) \"\(error.message)\" \(error.metadata?.description ?? "")")
        }
        let scheduleId: String = try await alice.action("scheduleIncrement", 10, 200)
        print("actors: alice scheduleIncrement(10, 200 ms) -> schedule \(scheduleId.prefix(8))…")
        print("actors: 200 ms later the schedule fired; bob saw newCount(\(await seenByBob.next() ?? -1))")
        let forwarded: Int = try await shared.getOrCreate("forwarder", key: ["demo"])
            .action("incrementCounter", arguments: ["demo", 1])
        print("actors: forwarder[demo].incrementCounter(demo, 1) -> \(forwarded), a call from one actor to another (context.client)")
        print("actors: bob saw newCount(\(await seenByBob.next() ?? -1))")
        let sleeper = shared.getOrCreate("counter", key: ["sleepy"])
        let wakes: Int = try await sleeper.action("wakeCount", arguments: [])
        _ = try await sleeper.action("increment", args: [3])
        print("actors: counter[sleepy] over HTTP: wakeCount() -> \(wakes), increment(3)")
        try await waitUntil("counter[sleepy] to sleep") { await server.awakeActorCount() == 1 }
        print("actors: counter[sleepy] and forwarder[demo] went to sleep after 300 ms with no connection (awake: counter[demo], which has two)")
        let woken: Int = try await sleeper.action("wakeCount", arguments: [])
        let slept: Int = try await sleeper.action("getCount", arguments: [])
        print("actors: the next action woke it: wakeCount() -> \(woken), getCount() -> \(slept) (state kept, vars made anew)")
        alice.setEnabled(false)
        print("actors: alice enabled=false -> \(alice.connStatus.rawValue), connection \(alice.connection == nil ? "released" : "kept")")
        alice.setEnabled(true)
        try await waitUntil("alice reconnects") { alice.isConnected }
        print("actors: alice enabled=true -> \(alice.connStatus.rawValue)")
        print("actors: stopping the server")
    }
    guard let alice = first, let bob = second else { return }
    try await waitUntil("the clients notice") { !alice.isConnected }
    print("actors: alice is \(alice.connStatus.rawValue)")
    configuration.port = port
    try await withActorServer(registry: DemoActors.registry, store: try SQLiteActorStore(path: database), configuration: configuration) {
        (_: ActorServer) async throws -> Void in
        print("actors: server restarted on the same port and database")
        try await waitUntil("both reconnect") { alice.isConnected && bob.isConnected }
        let kept: Int = try await bob.action("getCount")
        print("actors: both reconnected; bob getCount() -> \(kept) (kept across the restart)")
        alice.release()
        bob.release()
        await bob.client.close()
        await client?.close()
    }
    print("actors: done")
}

try await runDemo()
