import CoreMetrics
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

    /// The observability settings of a test: no metrics, `tracer`'s spans.
    private static func tracing(_ tracer: any Tracer) -> RpcObservability {
        RpcObservability(metricsFactory: NOOPMetricsHandler.instance, tracer: tracer)
    }

    @Test("an HTTP action gets a client span under the caller's context, and the server's action span is its child through the request's headers")
    func httpActionSpans() async throws {
        let tracer = InMemoryTracer()
        try await InProcessServer.with(configure: { $0.observability = Self.tracing(tracer) }) { (server: InProcessServer) async throws in
            let client = server.client { $0.observability = Self.tracing(tracer) }
            let handle = client.getOrCreate("counter", key: ["trace-http-\(UUID().uuidString)"])
            let root = tracer.startSpan("client work")
            let output = try await ServiceContext.withValue(root.context) {
                try await handle.action("increment", args: [4])
            }
            #expect(output == 4)
            await #expect(throws: ActorError.self) {
                try await ServiceContext.withValue(root.context) { try await handle.action("fail", args: []) }
            }
            root.end()
            await client.close()
            let spans = tracer.finishedSpans
            let sent = try #require(spans.first { $0.operationName == "rivetkit.action increment" && $0.kind == .client })
            let served = try #require(spans.first { $0.operationName == "rivetkit.action increment" && $0.kind == .server })
            #expect(sent.traceID == root.traceID)
            #expect(sent.parentSpanID == root.spanID)
            #expect(served.traceID == sent.traceID)
            #expect(served.parentSpanID == sent.spanID)
            #expect(sent.attributes["rpc.system"]?.toSpanAttribute() == .string("rivetkit"))
            #expect(sent.attributes["rpc.method"]?.toSpanAttribute() == .string("increment"))
            #expect(sent.attributes["rivetkit.actor"]?.toSpanAttribute() == .string("counter"))
            let failed = try #require(spans.first { $0.operationName == "rivetkit.action fail" && $0.kind == .client })
            #expect(failed.status?.code == .error)
            #expect(failed.attributes["rpc.error.code"] != nil)
        }
    }

    @Test("a realtime action gets a client span, and the server's action span joins the trace the connection's upgrade carried")
    func realtimeActionSpans() async throws {
        let tracer = InMemoryTracer()
        try await InProcessServer.with(configure: { $0.observability = Self.tracing(tracer) }) { (server: InProcessServer) async throws in
            let client = server.client { $0.observability = Self.tracing(tracer) }
            let connection = client.getOrCreate("counter", key: ["trace-rt-\(UUID().uuidString)"]).connect()
            let root = tracer.startSpan("client work")
            ServiceContext.withValue(root.context) { connection.start() }
            let output = try await ServiceContext.withValue(root.context) {
                try await connection.action("increment", args: [2])
            }
            #expect(output == 2)
            await connection.dispose()
            root.end()
            await client.close()
            let spans = tracer.finishedSpans
            let sent = try #require(spans.first { $0.operationName == "rivetkit.action increment" && $0.kind == .client })
            let served = try #require(spans.first { $0.operationName == "rivetkit.action increment" && $0.kind == .server })
            #expect(sent.traceID == root.traceID)
            #expect(sent.parentSpanID == root.spanID)
            #expect(served.traceID == sent.traceID)
            #expect(served.parentSpanID == root.spanID)
            #expect(!tracer.performedContextInjections.isEmpty)
        }
    }

    @Test("with the no-op tracer neither the client nor the server records a span or writes a trace header")
    func nothingWithoutATracer() async throws {
        let tracer = InMemoryTracer()
        try await InProcessServer.with(configure: { $0.observability = Self.tracing(NoOpTracer()) }) { (server: InProcessServer) async throws in
            let client = server.client { $0.observability = Self.tracing(NoOpTracer()) }
            let handle = client.getOrCreate("counter", key: ["trace-none-\(UUID().uuidString)"])
            let root = tracer.startSpan("client work")
            let connection = handle.connect()
            ServiceContext.withValue(root.context) { connection.start() }
            let (overHTTP, realtime) = try await ServiceContext.withValue(root.context) { () async throws -> (JSONValue, JSONValue) in
                let overHTTP = try await handle.action("increment", args: [1])
                return (overHTTP, try await connection.action("increment", args: [1]))
            }
            #expect(overHTTP == 1)
            #expect(realtime == 2)
            await connection.dispose()
            root.end()
            await client.close()
        }
        #expect(tracer.finishedSpans.map(\.operationName) == ["client work"])
        #expect(tracer.performedContextInjections.isEmpty)
    }
}
