#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import CapnWeb
import CapnWebSocketTestSupport
import CoreMetrics
import InMemoryTracing
import MetricsTestKit
import RpcTransport
import RpcTransportTesting
import ServiceContextModule
import Testing
import Tracing

@Suite("Cap'n Web metrics and spans")
struct ObservabilityTests {
    private static func labels(_ method: String) -> [(String, String)] {
        [("protocol", "capnweb"), ("method", method)]
    }

    @Test("a server counts the calls on its objects by method: started, succeeded, failed by code, and their durations")
    func serverCallMetrics() async throws {
        let metrics = TestMetrics()
        var configuration = Configuration()
        configuration.observability = RpcObservability(metricsFactory: metrics, tracer: NoOpTracer())
        try await withSocketPeers(serverConfiguration: configuration, main: { _ in NetTarget() }) { peers in
            let session = try await RpcSession<Any>.connect(to: peers.server.webSocketURL)
            peers.track(session)
            let n: Double = try await session.api.square(3)
            #expect(n == 9)
            let chained: Int = try await session.api.makeCounter(1).increment(2)
            #expect(chained == 3)
            await #expect(throws: RpcError.self) {
                let _: Int = try await session.api.nothing()
            }
            await peers.expectSettled(session)
        }
        #expect(try metrics.expectCounter("rpc_server_calls_started_total", Self.labels("square")).totalValue == 1)
        #expect(try metrics.expectCounter("rpc_server_calls_succeeded_total", Self.labels("square")).totalValue == 1)
        #expect(try metrics.expectCounter("rpc_server_calls_succeeded_total", Self.labels("makeCounter")).totalValue == 1)
        #expect(try metrics.expectCounter("rpc_server_calls_succeeded_total", Self.labels("increment")).totalValue == 1)
        #expect(try metrics.expectCounter("rpc_server_calls_started_total", Self.labels("nothing")).totalValue == 1)
        let failed = try metrics.expectCounter("rpc_server_calls_failed_total", Self.labels("nothing") + [("code", "invalidArgument")])
        #expect(failed.totalValue == 1)
        #expect(try metrics.expectCounter("rpc_server_calls_succeeded_total", Self.labels("nothing")).totalValue == 0)
        #expect(try metrics.expectTimer("rpc_server_calls_duration_seconds", Self.labels("square")).values.count == 1)
    }

    @Test("a client's span context reaches the server with the WebSocket upgrade and the batch request, and each server call's span is its child")
    func spansJoinTheClientsTrace() async throws {
        let tracer = InMemoryTracer()
        var serverConfiguration = Configuration()
        serverConfiguration.observability = RpcObservability(metricsFactory: NOOPMetricsHandler.instance, tracer: tracer)
        try await withSocketPeers(serverConfiguration: serverConfiguration, main: { _ in NetTarget() }) { peers in
            let server = peers.server
            let clientSpan = tracer.startSpan("client work", ofKind: .client)
            let session = try await ServiceContext.withValue(clientSpan.context) {
                try await RpcSession<Any>.connect(to: server.webSocketURL) { $0.observability = RpcObservability(tracer: tracer) }
            }
            peers.track(session)
            let n: Double = try await session.api.square(4)
            #expect(n == 16)
            await #expect(throws: RpcError.self) {
                let _: Int = try await session.api.nothing()
            }
            let sum: Int = try await ServiceContext.withValue(clientSpan.context) {
                try await RpcSession<Any>.batch(url: server.batchURL, configure: { $0.observability = RpcObservability(tracer: tracer) }) { api in
                    try await api.add(2, 3)
                }
            }
            #expect(sum == 5)
            clientSpan.end()
            await peers.expectSettled(session)
            let spans = tracer.finishedSpans
            // The client records its own spans of these calls too (kind client).
            let square = try #require(spans.first { $0.operationName == "square" && $0.kind == .server })
            let add = try #require(spans.first { $0.operationName == "add" && $0.kind == .server })
            let failed = try #require(spans.first { $0.operationName == "nothing" && $0.kind == .server })
            for span in [square, add, failed] {
                #expect(span.kind == .server)
                #expect(span.traceID == clientSpan.traceID)
                #expect(span.parentSpanID == clientSpan.spanID)
            }
            #expect(square.attributes["rpc.method"]?.toSpanAttribute() == .string("square"))
            #expect(failed.status?.code == .error)
            #expect(failed.attributes["rpc.error.code"]?.toSpanAttribute() == .string("invalidArgument"))
            #expect(failed.errors.count == 1)
        }
    }

    @Test("a client call gets a client span under the caller's context, and the server's span of the call joins the trace the upgrade carried")
    func clientCallSpans() async throws {
        let tracer = InMemoryTracer()
        let observability = RpcObservability(metricsFactory: NOOPMetricsHandler.instance, tracer: tracer)
        var serverConfiguration = Configuration()
        serverConfiguration.observability = observability
        try await withSocketPeers(serverConfiguration: serverConfiguration, main: { _ in NetTarget() }) { peers in
            let server = peers.server
            let root = tracer.startSpan("client work")
            let session = try await ServiceContext.withValue(root.context) {
                try await RpcSession<Any>.connect(to: server.webSocketURL) { $0.observability = observability }
            }
            peers.track(session)
            try await ServiceContext.withValue(root.context) {
                let n: Double = try await session.api.square(5)
                #expect(n == 25)
                let chained: Int = try await session.api.makeCounter(1).increment(2)
                #expect(chained == 3)
                await #expect(throws: RpcError.self) {
                    let _: Int = try await session.api.nothing()
                }
            }
            await peers.expectSettled(session)
            root.end()
            let spans = tracer.finishedSpans
            let sent = try #require(spans.first { $0.operationName == "square" && $0.kind == .client })
            let served = try #require(spans.first { $0.operationName == "square" && $0.kind == .server })
            #expect(sent.traceID == root.traceID)
            #expect(sent.parentSpanID == root.spanID)
            #expect(sent.attributes["rpc.system"]?.toSpanAttribute() == .string("capnweb"))
            #expect(sent.attributes["rpc.method"]?.toSpanAttribute() == .string("square"))
            #expect(served.traceID == sent.traceID)
            #expect(served.parentSpanID == root.spanID)
            // A pipelined call is a call of its own: the base's span and the awaited one's.
            #expect(spans.contains { $0.operationName == "makeCounter" && $0.kind == .client })
            #expect(spans.contains { $0.operationName == "increment" && $0.kind == .client })
            let failed = try #require(spans.first { $0.operationName == "nothing" && $0.kind == .client })
            #expect(failed.status?.code == .error)
            #expect(failed.attributes["rpc.error.code"]?.toSpanAttribute() == .string("invalidArgument"))
        }
    }

    @Test("with the no-op factory and tracer a server records nothing and sends no trace header")
    func nothingWithoutATracer() async throws {
        let tracer = InMemoryTracer()
        var configuration = Configuration()
        configuration.observability = RpcObservability(metricsFactory: NOOPMetricsHandler.instance, tracer: NoOpTracer())
        try await withSocketPeers(serverConfiguration: configuration, main: { _ in NetTarget() }) { peers in
            let span = tracer.startSpan("client work")
            let session = try await ServiceContext.withValue(span.context) {
                try await RpcSession<Any>.connect(to: peers.server.webSocketURL, configuration: configuration)
            }
            peers.track(session)
            let n: Double = try await session.api.square(2)
            #expect(n == 4)
            span.end()
            await peers.expectSettled(session)
        }
        #expect(tracer.finishedSpans.map(\.operationName) == ["client work"])
        #expect(tracer.performedContextInjections.isEmpty)
    }
}
