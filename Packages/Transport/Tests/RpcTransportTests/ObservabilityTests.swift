import CoreMetrics
import InMemoryTracing
import MetricsTestKit
import RpcTesting
@_spi(RpcImplementation) import RpcTransport
import RpcTransportInMemory
import ServiceContextModule
import Synchronization
import Testing
import Tracing

@Suite("Observability of the reconnecting connection and the call metrics")
struct ObservabilityTests {
    @Test("a connection counts itself open while connected, a reconnect after a loss, and the messages held offline")
    func connectionMetrics() async throws {
        let metrics = TestMetrics()
        let peer = ScriptedPeer()
        let configuration = quickConfiguration {
            $0.observability = RpcObservability(metricsFactory: metrics)
            $0.protocolName = "test"
        }
        let labels = [("protocol", "test")]
        try await ReconnectingConnection.withReconnectingConnection(
            configuration: configuration, factory: peer.factory, handler: .messages { _ in }
        ) { connection in
            let open = try metrics.expectMeter("rpc_client_connections_open", labels)
            #expect(await waitUntil { open.lastValue == 1 })
            peer.setMode(.hang)
            peer.cutAll()
            #expect(await waitUntil { open.lastValue == 0 })
            // Held while no link is ready: the depth meter counts them.
            try await connection.send(.text("one"))
            try await connection.send(.text("two"))
            let depth = try metrics.expectMeter("rpc_client_offline_queue_depth", labels)
            #expect(depth.lastValue == 2)
            peer.setMode(.accept)
            try await connection.reconnect()
            #expect(await waitUntil { peer.received == ["one", "two"] })
            #expect(await waitUntil { depth.lastValue == 0 })
            #expect(await waitUntil { open.lastValue == 1 })
            #expect(try metrics.expectCounter("rpc_client_reconnects_total", labels).totalValue == 1)
        }
        #expect(try metrics.expectMeter("rpc_client_connections_open", labels).lastValue == 0)
    }

    @Test("the trace context current at start goes into the headers of every connect, and none without a tracer")
    func headersCarryTheTrace() async throws {
        let tracer = InMemoryTracer()
        let seen = Collected<[String: String]>()
        let peer = ScriptedPeer()
        let factory: ReconnectingConnection.TransportFactory = { headers in
            seen.append(headers)
            return try await peer.factory(headers)
        }
        let configuration = quickConfiguration { $0.observability = RpcObservability(tracer: tracer) }
        let span = tracer.startSpan("client")
        try await ServiceContext.withValue(span.context) {
            try await ReconnectingConnection.withReconnectingConnection(
                configuration: configuration, factory: factory, handler: .messages { _ in }
            ) { connection in
                peer.cutAll()
                #expect(await waitUntil { seen.all.count == 2 && connection.state.isConnected })
            }
        }
        span.end()
        let traceID = try #require(span.context.inMemorySpanContext?.traceID)
        for headers in seen.all {
            #expect(headers[InMemoryTracer.traceIDKey] == traceID)
            #expect(TraceContextPropagation.extract(from: headers, using: tracer).inMemorySpanContext?.traceID == traceID)
        }

        // The same without a tracer: nothing is injected.
        let plain = Collected<[String: String]>()
        try await ServiceContext.withValue(span.context) {
            try await ReconnectingConnection.withReconnectingConnection(
                configuration: quickConfiguration(),
                factory: { headers in
                    plain.append(headers)
                    return try await peer.factory(headers)
                },
                handler: .messages { _ in }
            ) { _ in }
        }
        #expect(plain.all == [[:]])
    }

    @Test("call metrics count started, succeeded and failed calls by method and code, and fold methods past the limit into other")
    func callMetricsAreBounded() throws {
        let metrics = TestMetrics()
        let observability = RpcObservability(metricsFactory: metrics, maxLabelValues: 2, maxLabelLength: 8)
        let calls = try #require(RpcCallMetrics(family: "test_calls", protocolName: "test", observability: observability))
        calls.begin("a").succeeded()
        calls.begin("a").failed(code: "E1")
        calls.begin("b").succeeded()
        calls.begin("c").succeeded()
        calls.begin("averyveryverylongname").succeeded()
        func labels(_ method: String) -> [(String, String)] { [("protocol", "test"), ("method", method)] }
        #expect(try metrics.expectCounter("test_calls_started_total", labels("a")).totalValue == 2)
        #expect(try metrics.expectCounter("test_calls_succeeded_total", labels("a")).totalValue == 1)
        #expect(try metrics.expectCounter("test_calls_failed_total", labels("a") + [("code", "E1")]).totalValue == 1)
        #expect(try metrics.expectCounter("test_calls_started_total", labels("b")).totalValue == 1)
        #expect(try metrics.expectCounter("test_calls_started_total", labels("other")).totalValue == 2)
        #expect(metrics.counters(label: "test_calls_started_total").count == 3)
        #expect(try metrics.expectTimer("test_calls_duration_seconds", labels("a")).values.count == 2)
    }

    @Test("with the no-op factory and tracer nothing is made: no call metrics, no tracer")
    func noopRecordsNothing() {
        let observability = RpcObservability(metricsFactory: NOOPMetricsHandler.instance, tracer: NoOpTracer())
        #expect(RpcCallMetrics(family: "test_calls", protocolName: "test", observability: observability) == nil)
        #expect(observability.activeTracer == nil)
        #expect(observability.activeMetricsFactory == nil)
    }
}
