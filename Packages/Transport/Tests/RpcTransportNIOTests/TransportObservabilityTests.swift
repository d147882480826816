import InMemoryTracing
import MetricsTestKit
import NIOHTTP1
import RpcTesting
import RpcTransport
import RpcTransportNIO
import ServiceContextModule
import Synchronization
import Testing
import Tracing

@Suite("Transport server metrics and trace propagation over sockets (127.0.0.1)")
struct TransportObservabilityTests {
    @Test("a server counts its open connections and WebSockets and the bytes read and written")
    func serverMetrics() async throws {
        let metrics = TestMetrics()
        var configuration = EchoServer.configuration()
        configuration.observability = RpcObservability(metricsFactory: metrics)
        try await EchoServer.run(configuration: configuration) { server, observations in
            let client = try await WebSocketClient.connect(to: EchoServer.url(server))
            let inbox = Mutex<[String]>([])
            client.start { event in
                if case .message(let message) = event { inbox.withLock { $0.append(message.text ?? "") } }
            }
            try client.enqueue(.text("hello"))
            #expect(await waitUntil { inbox.withLock { $0 } == ["hello"] })
            let connections = try metrics.expectMeter("rpc_transport_connections_open")
            let webSockets = try metrics.expectMeter("rpc_transport_websockets_open")
            #expect(connections.lastValue == 1)
            #expect(webSockets.lastValue == 1)
            let received = try metrics.expectCounter("rpc_transport_bytes_received_total")
            let sent = try metrics.expectCounter("rpc_transport_bytes_sent_total")
            // The upgrade request and one masked frame in, the upgrade answer and the echo out.
            #expect(received.totalValue > 100)
            #expect(sent.totalValue > 100)
            await client.close(code: .normal, reason: "")
            _ = try await observations.closures(count: 1)
            #expect(await waitUntil { connections.lastValue == 0 && webSockets.lastValue == 0 })
        }
    }

    @Test("the client's span context reaches the server in the WebSocket upgrade and the batch headers, and the server's span joins its trace")
    func propagation() async throws {
        let tracer = InMemoryTracer()
        try await EchoServer.run { server, observations in
            let clientSpan = tracer.startSpan("client call", ofKind: .client)
            try await ServiceContext.withValue(clientSpan.context) {
                var connection = ReconnectingConnectionConfiguration()
                connection.observability = RpcObservability(tracer: tracer)
                try await ReconnectingConnection.withReconnectingConnection(
                    configuration: connection,
                    factory: { headers in
                        var configuration = WebSocketClientConfiguration()
                        for (name, value) in headers { configuration.headers.add(name: name, value: value) }
                        return try await WebSocketClient.connect(to: EchoServer.url(server), configuration: configuration)
                    },
                    handler: .messages { _ in }
                ) { _ in }
                var batch = HTTPBatchClientConfiguration()
                batch.observability = RpcObservability(tracer: tracer)
                let client = try HTTPBatchClient(url: "http://127.0.0.1:\(server.port ?? 0)/rpc", configuration: batch)
                _ = try await client.exchange([.text("one")])
                await client.close()
            }
            clientSpan.end()
            let upgrade = try #require(observations.upgrades.first)
            let batchRequest = try #require(observations.batches.first)
            for headers in [upgrade.headers, batchRequest.headers] {
                let parent = TraceContextPropagation.extract(from: headers, using: tracer)
                let serverSpan = tracer.startSpan("server call", context: parent, ofKind: .server)
                serverSpan.end()
                #expect(serverSpan.traceID == clientSpan.traceID)
                #expect(serverSpan.parentSpanID == clientSpan.spanID)
            }
        }
    }

    @Test("without a tracer no trace header is sent")
    func noTracerNoHeaders() async throws {
        try await EchoServer.run { server, observations in
            var batch = HTTPBatchClientConfiguration()
            batch.observability = RpcObservability(tracer: NoOpTracer())
            let client = try HTTPBatchClient(url: "http://127.0.0.1:\(server.port ?? 0)/rpc", configuration: batch)
            let tracer = InMemoryTracer()
            let span = tracer.startSpan("not sent")
            _ = try await ServiceContext.withValue(span.context) { try await client.exchange([.text("one")]) }
            span.end()
            await client.close()
            let request = try #require(observations.batches.first)
            #expect(request.headers.first(name: InMemoryTracer.traceIDKey) == nil)
            #expect(request.headers.first(name: "traceparent") == nil)
        }
    }
}
