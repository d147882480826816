import Foundation
import RivetKitServer
import Testing

@Suite("RivetKit's own TypeScript client against the demo actor server")
struct RivetKitClientInteropTests {
    /// The features Peers/rivetkit_demo_check.mjs checks, in its order.
    static let features = [
        "connection-params", "connection-count", "schedule", "raw-fetch", "raw-websocket", "forwarder",
        "sleep-and-wake", "destroy",
    ]

    @Test(
        "Every demo feature behaves as documented when RivetKit's client drives it: params as connection state, connection count, a schedule firing, fetch, a raw WebSocket, an actor calling another, sleep and wake, destroy",
        .enabled(if: NodePeer.isAvailable, "RivetKit's TypeScript client is not installed (RIVETKIT_CLIENT_MODULES)"))
    func demoFeatures() async throws {
        let database = FileManager.default.temporaryDirectory.appendingPathComponent("rivetkit-interop-\(UUID().uuidString).sqlite")
        defer { try? FileManager.default.removeItem(at: database) }
        var configuration = ActorServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.sleepTimeout = .milliseconds(300)
        let outcome = try await withActorServer(
            registry: DemoActors.registry, store: try SQLiteActorStore(path: database.path), configuration: configuration
        ) { server in
            try await NodePeer.run("rivetkit_demo_check.mjs", arguments: [server.endpoint, "300"])
        }
        #expect(outcome.status == 0, "\(outcome.lines.joined(separator: "\n"))")
        #expect(outcome.lines.filter { $0.hasPrefix("ok ") } == Self.features.map { "ok \($0)" })
        #expect(outcome.lines.last == "done")
    }
}
