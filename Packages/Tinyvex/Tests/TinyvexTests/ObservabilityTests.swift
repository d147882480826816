import Foundation
import InMemoryTracing
import MetricsTestKit
import RpcDoTesting
import RpcTransport
import Testing
import Tinyvex
import TinyvexServer
import Tracing

@Suite("Tinyvex server metrics and spans, over in-memory links", .timeLimit(.minutes(1)))
struct ObservabilityTests {
    private static func labels(_ method: String) -> [(String, String)] {
        [("protocol", "tinyvex"), ("method", method)]
    }

    @Test("a server counts mutations and query evaluations by name, failures by code, and its live subscriptions, with a span for each")
    func metricsAndSpans() async throws {
        let metrics = TestMetrics()
        let tracer = InMemoryTracer()
        var configuration = TinyvexServerConfiguration()
        configuration.observability = RpcObservability(metricsFactory: metrics, tracer: tracer)
        try await withInMemoryServer(configuration: configuration) { server in
            let client = try makeClient(server)
            let values: AsyncThrowingStream<[Message], any Error> = client.subscribe("messages.list", params: Channel(channel: "general"), as: [Message].self)
            var iterator = values.makeAsyncIterator()
            #expect(try await iterator.next() == [])
            let live = try metrics.expectMeter("tinyvex_subscriptions_live")
            #expect(live.lastValue == 1)
            _ = try await client.mutation("messages.send", args: Send(channel: "general", author: "ann", text: "hi"), as: Int64.self)
            #expect(try await iterator.next()?.count == 1)
            await #expect(throws: TinyvexError.self) {
                _ = try await client.mutation("nothing", args: Channel(channel: "x"), as: Int.self)
            }
            await client.close()
            #expect(await waitUntil { live.lastValue == 0 })
        }
        #expect(try metrics.expectCounter("tinyvex_mutations_started_total", Self.labels("messages.send")).totalValue == 1)
        #expect(try metrics.expectCounter("tinyvex_mutations_succeeded_total", Self.labels("messages.send")).totalValue == 1)
        #expect(try metrics.expectTimer("tinyvex_mutations_duration_seconds", Self.labels("messages.send")).values.count == 1)
        let failures = metrics.counters(label: "tinyvex_mutations_failed_total").filter { $0.dimensions.contains { $0 == ("method", "nothing") } }
        #expect(failures.map(\.totalValue) == [1])
        // The first run, then the re-run the mutation caused.
        #expect(try metrics.expectCounter("tinyvex_query_evaluations_succeeded_total", Self.labels("messages.list")).totalValue == 2)
        let spans = tracer.finishedSpans
        #expect(spans.filter { $0.operationName == "tinyvex.query messages.list" }.count == 2)
        let mutation = try #require(spans.first { $0.operationName == "tinyvex.mutation messages.send" })
        #expect(mutation.kind == .server)
        let failed = try #require(spans.first { $0.operationName == "tinyvex.mutation nothing" })
        #expect(failed.status?.code == .error)
        #expect(failed.errors.count == 1)
    }
}
