import CoreMetrics
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

    /// The observability settings of a test: no metrics, `tracer`'s spans.
    private static func tracing(_ tracer: any Tracer) -> RpcObservability {
        RpcObservability(metricsFactory: NOOPMetricsHandler.instance, tracer: tracer)
    }

    @Test("a client's mutation, query and subscription get client spans under the caller's context, and the server's spans join the trace the upgrade carried")
    func clientSpansReachTheServer() async throws {
        let tracer = InMemoryTracer()
        var configuration = TinyvexServerConfiguration()
        configuration.observability = Self.tracing(tracer)
        try await withInMemoryServer(configuration: configuration) { server in
            var clientConfiguration = fastConfiguration
            clientConfiguration.observability = Self.tracing(tracer)
            let client = try makeClient(server, configuration: clientConfiguration)
            let root = tracer.startSpan("client work")
            // The mutation opens the connection: its upgrade carries the mutation's span.
            _ = try await ServiceContext.withValue(root.context) {
                try await client.mutation("messages.send", args: Send(channel: "general", author: "ann", text: "hi"), as: Int64.self)
            }
            let read = try await ServiceContext.withValue(root.context) {
                try await client.query("messages.list", params: Channel(channel: "general"), as: [Message].self)
            }
            #expect(read.count == 1)
            let values: AsyncThrowingStream<[Message], any Error> = ServiceContext.withValue(root.context) {
                client.subscribe("messages.list", params: Channel(channel: "general"), as: [Message].self)
            }
            var iterator = values.makeAsyncIterator()
            #expect(try await iterator.next()?.count == 1)
            try await waitUntil("the subscription's span has ended") {
                tracer.finishedSpans.contains { $0.operationName == "tinyvex.subscribe messages.list" }
            }
            await client.close()
            root.end()
            let spans = tracer.finishedSpans
            let sent = try #require(spans.first { $0.operationName == "tinyvex.mutation messages.send" && $0.kind == .client })
            let served = try #require(spans.first { $0.operationName == "tinyvex.mutation messages.send" && $0.kind == .server })
            #expect(sent.traceID == root.traceID)
            #expect(sent.parentSpanID == root.spanID)
            #expect(sent.attributes["rpc.system"]?.toSpanAttribute() == .string("tinyvex"))
            #expect(sent.attributes["rpc.method"]?.toSpanAttribute() == .string("messages.send"))
            #expect(served.traceID == sent.traceID)
            #expect(served.parentSpanID == sent.spanID)
            let query = try #require(spans.first { $0.operationName == "tinyvex.query messages.list" && $0.kind == .client })
            #expect(query.parentSpanID == root.spanID)
            let subscribe = try #require(spans.first { $0.operationName == "tinyvex.subscribe messages.list" })
            #expect(subscribe.kind == .client)
            #expect(subscribe.parentSpanID == root.spanID)
            let evaluations = spans.filter { $0.operationName == "tinyvex.query messages.list" && $0.kind == .server }
            #expect(!evaluations.isEmpty)
            #expect(evaluations.allSatisfy { $0.traceID == root.traceID })
        }
    }

    @Test("with the no-op tracer neither the client nor the server records a span or writes a trace header")
    func nothingWithoutATracer() async throws {
        let tracer = InMemoryTracer()
        var configuration = TinyvexServerConfiguration()
        configuration.observability = Self.tracing(NoOpTracer())
        try await withInMemoryServer(configuration: configuration) { server in
            var clientConfiguration = fastConfiguration
            clientConfiguration.observability = Self.tracing(NoOpTracer())
            let client = try makeClient(server, configuration: clientConfiguration)
            let root = tracer.startSpan("client work")
            let count = try await ServiceContext.withValue(root.context) { () async throws -> Int? in
                _ = try await client.mutation("messages.send", args: Send(channel: "general", author: "ann", text: "hi"), as: Int64.self)
                let values: AsyncThrowingStream<[Message], any Error> =
                    client.subscribe("messages.list", params: Channel(channel: "general"), as: [Message].self)
                var iterator = values.makeAsyncIterator()
                return try await iterator.next()?.count
            }
            #expect(count == 1)
            await client.close()
            root.end()
        }
        #expect(tracer.finishedSpans.map(\.operationName) == ["client work"])
        #expect(tracer.performedContextInjections.isEmpty)
    }
}
