import RivetKit
import RivetKitServer
import RpcDoTesting
import RpcTransportNIO
import Synchronization
import Testing

@Suite("Actions over one realtime connection")
struct RealtimeActionTests {
    /// What happened, in order.
    final class Log: Sendable {
        private let entries = Mutex<[String]>([])
        func append(_ entry: String) { entries.withLock { $0.append(entry) } }
        var all: [String] { entries.withLock { $0 } }

        /// Returns once `count` entries were written.
        func wait(for count: Int) async throws {
            try await waitUntil("\(count) log entries") { entries.withLock { $0.count } >= count }
        }
    }

    @Test("Actions that suspend and actions that do not run one at a time in arrival order, and answer in it")
    func mixedActionsKeepTheirOrder() async throws {
        let probe = ConcurrencyProbe()
        var registry = ActorRegistry()
        registry.register(
            ActorDefinition("mixed", initialState: 0)
                .action("slow") { (context: inout ActorContext<Int>) in
                    probe.enter()
                    for _ in 0 ..< 3 { await Task.yield() }
                    try await Task.sleep(for: .milliseconds(2))
                    probe.leave()
                    context.state += 1
                    return context.state
                }
                .action("get") { (context: inout ActorContext<Int>) in
                    probe.enter()
                    probe.leave()
                    return context.state
                })
        try await withActorServer(registry: registry, store: try SQLiteActorStore.inMemory(), configuration: ServerHarness.configuration()) {
            (server: ActorServer) async throws -> Void in
            let socket = try await ServerHarness.connect(server, "/gateway/mixed/connect?rvt-method=getOrCreate&rvt-key=m")
            _ = try await socket.nextMessage()
            let names = ["get", "slow", "get", "get", "slow", "slow", "get", "slow", "get"]
            for (id, name) in names.enumerated() {
                try await socket.send(.actionRequest(id: UInt64(id), name: name, args: []))
            }
            var count = 0
            for (id, name) in names.enumerated() {
                if name == "slow" { count += 1 }
                #expect(try await socket.nextMessage() == .actionResponse(id: UInt64(id), output: .integer(Int64(count))))
            }
            #expect(probe.maximum == 1)
            await socket.transport.close(code: .normal, reason: "Disposed")
        }
    }

    @Test("A connection closed while its action waits is let go (disconnect hook) only once that action has answered")
    func disconnectWaitsForTheActionsInFlight() async throws {
        let gate = ServerLimitTests.Gate()
        let log = Log()
        var registry = ActorRegistry()
        registry.register(
            ActorDefinition("gated", initialState: 0)
                .action("gate") { (context: inout ActorContext<Int>) in
                    await gate.pass()
                    context.state += 1
                    log.append("action answered")
                    return context.state
                }
                .onDisconnect { _ in log.append("disconnected") })
        try await withActorServer(registry: registry, store: try SQLiteActorStore.inMemory(), configuration: ServerHarness.configuration()) {
            (server: ActorServer) async throws -> Void in
            let socket = try await ServerHarness.connect(server, "/gateway/gated/connect?rvt-method=getOrCreate&rvt-key=d")
            _ = try await socket.nextMessage()
            try await socket.send(.actionRequest(id: 0, name: "gate", args: []))
            try await waitUntil("the action to wait at the gate") { gate.waiting > 0 }
            await socket.transport.close(code: .normal, reason: "Disposed")
            gate.open()
            try await log.wait(for: 2)
            #expect(log.all == ["action answered", "disconnected"])
        }
    }
}
