import RpcTransport
import RpcWire
import ServiceContextModule
import Synchronization
import Tracing

/// What one session records about the calls the peer makes on this side's objects: the
/// `rpc_server_calls` metrics and a server span per call, whose parent is the trace context the
/// session was opened in (the one a server extracted from the upgrade or batch headers); and a
/// client span per call this side sends to the peer, under the caller's trace context.
///
/// The engine binds it to ``current`` while it runs a push, so that ``TargetHook`` finds it
/// without a reference to the session; a process in which no session observes anything pays for
/// one relaxed atomic load per call.
final class SessionObservation: Sendable {
    /// The observation of the push being run, if its session observes.
    @TaskLocal static var current: SessionObservation?

    /// Whether any session of the process observes: until then ``current`` is not even read.
    static let inUse = Atomic<Bool>(false)

    private let calls: RpcCallMetrics?
    private let tracer: (any Tracer)?
    private let parent: ServiceContext

    private init(calls: RpcCallMetrics?, tracer: (any Tracer)?, parent: ServiceContext) {
        self.calls = calls
        self.tracer = tracer
        self.parent = parent
    }

    /// The observation of a new session, with the trace context current now as the parent of
    /// its spans; `nil` when neither metrics nor spans go anywhere.
    static func make(_ observability: RpcObservability) -> SessionObservation? {
        let calls = RpcCallMetrics(family: "rpc_server_calls", protocolName: "capnweb", observability: observability)
        let tracer = observability.activeTracer
        guard calls != nil || tracer != nil else { return nil }
        inUse.store(true, ordering: .relaxed)
        return SessionObservation(calls: calls, tracer: tracer, parent: ServiceContext.current ?? .topLevel)
    }

    /// The observation of the push being run, if any (a cheap check first).
    static var active: SessionObservation? {
        inUse.load(ordering: .relaxed) ? current : nil
    }

    /// Runs `call`, the call of `method` on a local target, measured and in a span of its own
    /// (current while the target's code starts), both ended once its result settles.
    func observe(_ method: String, _ call: () -> any StubHook) -> any StubHook {
        let measurement = calls?.begin(method)
        guard let tracer else {
            let hook = call()
            if let measurement {
                hook.whenSettled { settlement in Self.finish(measurement, settlement) }
            }
            return hook
        }
        let span = tracer.startSpan(method, context: parent, ofKind: .server)
        span.attributes["rpc.system"] = "capnweb"
        span.attributes["rpc.method"] = method
        let hook = ServiceContext.withValue(span.context) { call() }
        hook.whenSettled { settlement in
            if let measurement { Self.finish(measurement, settlement) }
            if case .failure(let rejection) = settlement {
                let error = rejection.rpcError
                span.recordFailure(code: Self.code(of: rejection), message: error.description, error: error)
            }
            span.end()
        }
        return hook
    }

    /// Whether calls sent to the peer get a client span: a tracer records.
    var tracesClientCalls: Bool { tracer != nil }

    /// Starts the client span of a call sent to the peer on `path`, as a child of the caller's
    /// trace context, and ends it once `answer` settles (or, for a call whose result is never
    /// asked for, once the answer is let go).
    func clientCall(_ path: [CapnWebPathKey], answeredBy answer: LocalPromiseHook) {
        guard let tracer else { return }
        let method: String
        if case .property(let name) = path.last { method = name } else { method = "()" }
        let span = tracer.startSpan(method, context: ServiceContext.current ?? .topLevel, ofKind: .client)
        span.attributes["rpc.system"] = "capnweb"
        span.attributes["rpc.method"] = method
        let call = ClientCallSpan(span)
        answer.whenSettled { settlement in call.end(settlement) }
    }

    private static func finish(_ measurement: RpcCallMeasurement, _ settlement: Settlement) {
        switch settlement {
        case .success: measurement.succeeded()
        case .failure(let rejection): measurement.failed(code: code(of: rejection))
        }
    }

    /// The stable code of a rejection: its ``RpcFailure`` code (`internal`, `unavailable`, ...).
    static func code(of rejection: Rejection) -> String {
        rejection.rpcError.rpcFailure.code.rawValue
    }
}
