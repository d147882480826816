import CapnWeb
import CoreMetrics
import InMemoryTracing
import MetricsTestKit
@testable import RpcDo
import RpcTransport
import Synchronization
import Testing
import Tracing

/// An interceptor that keeps the metadata of every call it sees, with the call's text.
final class MetadataLog: ClientInterceptor {
    private let entries = Mutex<[(method: String, metadata: [String: String])]>([])

    var all: [(method: String, metadata: [String: String])] { entries.withLock { $0 } }

    func intercept<Output>(_ call: ClientCall, next: (ClientCall) async throws -> Output) async throws -> Output {
        entries.withLock { $0.append((call.method, call.metadata)) }
        return try await next(call)
    }
}

@Suite("RpcClient metrics and spans")
struct ClientObservabilityTests {
    static func withClient(
        _ observability: RpcObservability,
        log: MetadataLog = MetadataLog(),
        _ body: (RpcClient) async throws -> Void
    ) async throws {
        let server = InMemoryServer()
        var configuration = InMemoryServer.configuration(maxRetries: 0)
        configuration.observability = observability
        configuration.interceptors = [log]
        let client = RpcClient(configuration: configuration, transportFactory: server.factory)
        try await client.connect()
        do {
            try await body(client)
        } catch {
            await client.disconnect()
            throw error
        }
        await client.disconnect()
    }

    static func labels(_ method: String) -> [(String, String)] {
        [("protocol", "rpcdo"), ("method", method)]
    }

    @Test("each call counts as started and succeeded or failed by method and code, with its duration")
    func callMetrics() async throws {
        let metrics = TestMetrics()
        try await Self.withClient(RpcObservability(metricsFactory: metrics, tracer: NoOpTracer())) { client in
            let first: Int = try await client.api.square(n: 3)
            let second: Int = try await client.api.square(n: 4)
            #expect([first, second] == [9, 16])
            let failed = await result { () async throws -> RpcValue in try await client.api.fail("TypeError") }
            #expect(failed == .failure(.remote(type: "TypeError", message: "failed with TypeError")))
            let _: String = try await client.api.users.get(id: "1").name
        }
        #expect(try metrics.expectCounter("rpc_client_calls_started_total", Self.labels("square")).totalValue == 2)
        #expect(try metrics.expectCounter("rpc_client_calls_succeeded_total", Self.labels("square")).totalValue == 2)
        #expect(try metrics.expectTimer("rpc_client_calls_duration_seconds", Self.labels("square")).values.count == 2)
        #expect(try metrics.expectCounter("rpc_client_calls_started_total", Self.labels("fail")).totalValue == 1)
        #expect(try metrics.expectCounter("rpc_client_calls_succeeded_total", Self.labels("fail")).totalValue == 0)
        let failures = try metrics.expectCounter(
            "rpc_client_calls_failed_total", Self.labels("fail") + [("code", "invalidArgument")])
        #expect(failures.totalValue == 1)
        #expect(try metrics.expectTimer("rpc_client_calls_duration_seconds", Self.labels("fail")).values.count == 1)
        // The method label is the path without arguments (ids are data, not names).
        #expect(try metrics.expectCounter("rpc_client_calls_succeeded_total", Self.labels("users.get.name")).totalValue == 1)
        #expect(metrics.counters(label: "rpc_client_calls_failed_total").count == 1)
        // The connection's own metrics carry the protocol of this client.
        _ = try metrics.expectMeter("rpc_client_connections_open", [("protocol", "rpcdo")])
    }

    @Test("each call runs in a client span under the caller's, whose context is in the call's metadata")
    func callSpans() async throws {
        let tracer = InMemoryTracer()
        let log = MetadataLog()
        let parent = tracer.startSpan("caller")
        try await Self.withClient(RpcObservability(metricsFactory: TestMetrics(), tracer: tracer), log: log) { client in
            try await ServiceContext.withValue(parent.context) {
                let squared: Int = try await client.api.square(n: 5).withMetadata(["tenant": "a"])
                #expect(squared == 25)
                let failed = await result { () async throws -> RpcValue in try await client.api.fail("RangeError") }
                #expect(failed == .failure(.remote(type: "RangeError", message: "failed with RangeError")))
            }
        }
        parent.end()
        let spans = tracer.finishedSpans
        let square = try #require(spans.first { $0.operationName == "square" })
        #expect(square.kind == .client)
        #expect(square.traceID == parent.context.inMemorySpanContext?.traceID)
        #expect(square.parentSpanID == parent.context.inMemorySpanContext?.spanID)
        #expect(square.attributes["rpc.system"]?.toSpanAttribute() == .string("rpcdo"))
        #expect(square.attributes["rpc.method"]?.toSpanAttribute() == .string("square"))
        #expect(square.status == nil)
        let fail = try #require(spans.first { $0.operationName == "fail" })
        #expect(fail.kind == .client)
        #expect(fail.status?.code == .error)
        #expect(fail.attributes["rpc.error.code"]?.toSpanAttribute() == .string("outOfRange"))
        #expect(fail.errors.count == 1)

        let calls = log.all
        #expect(calls.count == 2)
        let squareCall = try #require(calls.first { $0.method.hasPrefix(".square") })
        #expect(squareCall.metadata == [
            "tenant": "a",
            InMemoryTracer.traceIDKey: square.traceID,
            InMemoryTracer.spanIDKey: square.spanID,
        ])
        // What a server extracts from that metadata continues the client's span.
        let extracted = TraceContextPropagation.extract(from: squareCall.metadata, using: tracer)
        #expect(extracted.inMemorySpanContext?.spanID == square.spanID)
        let failCall = try #require(calls.first { $0.method.hasPrefix(".fail") })
        #expect(failCall.metadata[InMemoryTracer.spanIDKey] == fail.spanID)
    }

    @Test("without a tracer no span is started and the call's metadata is left as the caller set it")
    func noTracer() async throws {
        let log = MetadataLog()
        try await Self.withClient(RpcObservability(metricsFactory: TestMetrics(), tracer: NoOpTracer()), log: log) { client in
            let squared: Int = try await client.api.square(n: 2).withMetadata(["tenant": "a"])
            #expect(squared == 4)
        }
        #expect(log.all.map(\.metadata) == [["tenant": "a"]])
        // Without a metrics factory either, the client records nothing at all.
        let noop = RpcObservability(metricsFactory: NOOPMetricsHandler.instance, tracer: NoOpTracer())
        #expect(ClientObservation.make(noop) == nil)
        #expect(ClientObservation.make(RpcObservability(metricsFactory: TestMetrics(), tracer: NoOpTracer())) != nil)
    }
}
