import CoreMetrics
import NIOHTTP1
import RivetKit
import RpcTransport
import RpcTransportNIO
import RpcWire
import Tracing

/// What an actor server records: the `rivetkit_actions` family, the `rivetkit_actors_awake`
/// meter and a span per action. Made once per server; `nil` when neither metrics nor spans go
/// anywhere.
final class ActorObservation: Sendable {
    private let actions: RpcCallMetrics?
    private let awake: Meter?
    private let tracer: (any Tracer)?

    private init(actions: RpcCallMetrics?, awake: Meter?, tracer: (any Tracer)?) {
        self.actions = actions
        self.awake = awake
        self.tracer = tracer
    }

    /// The observation of a server with these settings, or `nil` when nothing is recorded.
    static func make(_ observability: RpcObservability) -> ActorObservation? {
        let factory = observability.activeMetricsFactory
        let tracer = observability.activeTracer
        guard factory != nil || tracer != nil else { return nil }
        return ActorObservation(
            actions: RpcCallMetrics(family: "rivetkit_actions", protocolName: "rivetkit", observability: observability),
            awake: factory.map { Meter(label: "rivetkit_actors_awake", dimensions: [], factory: $0) },
            tracer: tracer)
    }

    /// The trace context a client sent in the headers of its upgrade or HTTP request, to be the
    /// parent of the spans of the actions it brings; `nil` when no tracer records.
    func traceParent(of headers: HTTPHeaders) -> ServiceContext? {
        guard let tracer else { return nil }
        return TraceContextPropagation.extract(from: headers, using: tracer)
    }

    /// An action `name` of an actor of kind `actor` begins, as a child of `parent` (a trace
    /// context the client sent) or, without one, of the trace context current here.
    func action(_ name: String, actor: String, parent: ServiceContext? = nil) -> ActionProbe {
        var span: (any Span)?
        if let tracer {
            let started = tracer.startSpan(
                "rivetkit.action \(name)", context: parent ?? ServiceContext.current ?? .topLevel, ofKind: .server)
            started.attributes["rpc.system"] = "rivetkit"
            started.attributes["rpc.method"] = name
            started.attributes["rivetkit.actor"] = actor
            span = started
        }
        return ActionProbe(measurement: actions?.begin(name), span: span)
    }

    /// The number of actors in memory changed by `delta`.
    func awakeChanged(by delta: Int) {
        guard let awake, delta != 0 else { return }
        if delta > 0 {
            awake.increment(by: Double(delta))
        } else {
            awake.decrement(by: Double(-delta))
        }
    }
}

/// One action being recorded; ended once.
struct ActionProbe: Sendable {
    let measurement: RpcCallMeasurement?
    let span: (any Span)?

    func succeeded() {
        measurement?.succeeded()
        span?.end()
    }

    func failed(_ error: ActorError) {
        let code = error.rpcFailure.code.rawValue
        measurement?.failed(code: code)
        if let span {
            span.recordFailure(code: code, message: error.message, error: error)
            span.end()
        }
    }
}
