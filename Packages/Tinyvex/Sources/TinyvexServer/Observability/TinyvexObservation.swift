import CoreMetrics
import NIOHTTP1
import RpcTransport
import RpcTransportNIO
import RpcWire
import Tracing

/// What a Tinyvex server records: the `tinyvex_mutations` and `tinyvex_query_evaluations`
/// families, the `tinyvex_subscriptions_live` meter and a span per mutation and per query
/// evaluation. Made once per server; `nil` when neither metrics nor spans go anywhere.
final class TinyvexObservation: Sendable {
    private let mutations: RpcCallMetrics?
    private let queries: RpcCallMetrics?
    private let subscriptions: Meter?
    private let tracer: (any Tracer)?

    private init(mutations: RpcCallMetrics?, queries: RpcCallMetrics?, subscriptions: Meter?, tracer: (any Tracer)?) {
        self.mutations = mutations
        self.queries = queries
        self.subscriptions = subscriptions
        self.tracer = tracer
    }

    /// The observation of a server with these settings, or `nil` when nothing is recorded.
    static func make(_ observability: RpcObservability) -> TinyvexObservation? {
        let factory = observability.activeMetricsFactory
        let tracer = observability.activeTracer
        guard factory != nil || tracer != nil else { return nil }
        return TinyvexObservation(
            mutations: RpcCallMetrics(family: "tinyvex_mutations", protocolName: "tinyvex", observability: observability),
            queries: RpcCallMetrics(family: "tinyvex_query_evaluations", protocolName: "tinyvex", observability: observability),
            subscriptions: factory.map { Meter(label: "tinyvex_subscriptions_live", dimensions: [], factory: $0) },
            tracer: tracer)
    }

    /// The trace context a client sent in the headers of its upgrade, to be the parent of the
    /// spans of what its connection brings; `nil` when no tracer records.
    func traceParent(of headers: HTTPHeaders) -> ServiceContext? {
        guard let tracer else { return nil }
        return TraceContextPropagation.extract(from: headers, using: tracer)
    }

    /// A mutation of `name` begins.
    func mutation(_ name: String) -> TinyvexProbe {
        TinyvexProbe(
            measurement: mutations?.begin(name),
            span: tracer.map { Self.span($0, "tinyvex.mutation \(name)", method: name) })
    }

    /// An evaluation of the query `name` begins.
    func query(_ name: String) -> TinyvexProbe {
        TinyvexProbe(
            measurement: queries?.begin(name),
            span: tracer.map { Self.span($0, "tinyvex.query \(name)", method: name) })
    }

    /// The number of live subscriptions changed by `delta`.
    func subscriptionsChanged(by delta: Int) {
        guard let subscriptions, delta != 0 else { return }
        if delta > 0 {
            subscriptions.increment(by: Double(delta))
        } else {
            subscriptions.decrement(by: Double(-delta))
        }
    }

    private static func span(_ tracer: any Tracer, _ operation: String, method: String) -> any Span {
        let span = tracer.startSpan(operation, ofKind: .server)
        span.attributes["rpc.system"] = "tinyvex"
        span.attributes["rpc.method"] = method
        return span
    }
}

/// One mutation or query evaluation being recorded; ended once.
struct TinyvexProbe: Sendable {
    let measurement: RpcCallMeasurement?
    let span: (any Span)?

    func succeeded() {
        measurement?.succeeded()
        span?.end()
    }

    func failed(_ error: TinyvexServerError) {
        let code = error.rpcFailure.code.rawValue
        measurement?.failed(code: code)
        if let span {
            span.recordFailure(code: code, message: error.message, error: error)
            span.end()
        }
    }
}
