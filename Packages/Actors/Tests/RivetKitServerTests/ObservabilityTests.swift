import Foundation
import InMemoryTracing
import MetricsTestKit
import NIOHTTP1
import RivetKit
@testable import RivetKitServer
import RpcDoTesting
import RpcTransport
import Testing
import Tracing

@Suite("Actor server metrics and spans")
struct ObservabilityTests {
    private static func labels(_ method: String) -> [(String, String)] {
        [("protocol", "rivetkit"), ("method", method)]
    }

    @Test("a server counts actions by name, failures by code, and its awake actors, with a span per action")
    func actionMetricsAndSpans() async throws {
        let metrics = TestMetrics()
        let tracer = InMemoryTracer()
        try await InProcessServer.with(configure: {
            $0.observability = RpcObservability(metricsFactory: metrics, tracer: tracer)
        }) { (server: InProcessServer) async throws in
            let body: JSONValue = ["name": "counter", "key": .string(ActorKey.serialize(["metrics-\(UUID().uuidString)"]))]
            let (_, text) = await server.request(.PUT, "/actors", json: body.description)
            guard case .string(let id)? = try JSONValue(parsing: text)["actor"]?["actor_id"] else {
                throw ServerHarness.Unexpected()
            }
            #expect(try await server.httpAction(actorId: id, "increment", args: [3]).body == ["output": 3])
            #expect(try await server.httpAction(actorId: id, "getCount").body == ["output": 3])
            #expect(try await server.httpAction(actorId: id, "fail").status != 200)
            let awake = try metrics.expectMeter("rivetkit_actors_awake")
            #expect(awake.lastValue == 1)
            #expect(await server.core.directory.sleepIdle(now: .now + .seconds(3600)) == 1)
            try await waitUntil("the counter has slept") { awake.lastValue == 0 }
        }
        #expect(try metrics.expectCounter("rivetkit_actions_started_total", Self.labels("increment")).totalValue == 1)
        #expect(try metrics.expectCounter("rivetkit_actions_succeeded_total", Self.labels("increment")).totalValue == 1)
        #expect(try metrics.expectCounter("rivetkit_actions_succeeded_total", Self.labels("getCount")).totalValue == 1)
        #expect(try metrics.expectTimer("rivetkit_actions_duration_seconds", Self.labels("getCount")).values.count == 1)
        let failures = metrics.counters(label: "rivetkit_actions_failed_total").filter { $0.dimensions.contains { $0 == ("method", "fail") } }
        #expect(failures.map(\.totalValue) == [1])
        #expect(try metrics.expectCounter("rivetkit_actions_succeeded_total", Self.labels("fail")).totalValue == 0)
        let spans = tracer.finishedSpans
        let increment = try #require(spans.first { $0.operationName == "rivetkit.action increment" })
        #expect(increment.kind == .server)
        #expect(increment.attributes["rivetkit.actor"]?.toSpanAttribute() == .string("counter"))
        let failed = try #require(spans.first { $0.operationName == "rivetkit.action fail" })
        #expect(failed.status?.code == .error)
        #expect(failed.errors.count == 1)
    }
}
