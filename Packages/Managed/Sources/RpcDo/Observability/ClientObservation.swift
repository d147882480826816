import RpcTransport
import ServiceContextModule
import Tracing

/// What one client records about its calls: the `rpc_client_calls` metrics (protocol `rpcdo`,
/// by method) and a client span per call, whose trace context is written into the call's
/// metadata so that the interceptors, and a server that reads it, continue the trace.
///
/// Made once per client; `nil` when neither metrics nor spans go anywhere, so that a call then
/// pays for one check.
final class ClientObservation: Sendable {
    private let calls: RpcCallMetrics?
    private let tracer: (any Tracer)?

    private init(calls: RpcCallMetrics?, tracer: (any Tracer)?) {
        self.calls = calls
        self.tracer = tracer
    }

    /// The observation of a client with these settings, or `nil` when nothing is recorded.
    static func make(_ observability: RpcObservability) -> ClientObservation? {
        let calls = RpcCallMetrics(family: "rpc_client_calls", protocolName: "rpcdo", observability: observability)
        let tracer = observability.activeTracer
        guard calls != nil || tracer != nil else { return nil }
        return ClientObservation(calls: calls, tracer: tracer)
    }

    /// Runs `body` with `call`, measured and in a client span named `method` (current while it
    /// runs), its context injected into the call's metadata; both ended once it returns.
    func observe<T: Sendable>(
        _ method: String,
        call: ClientCall,
        _ body: (ClientCall) async throws(RpcError) -> T
    ) async throws(RpcError) -> T {
        let measurement = calls?.begin(method)
        guard let tracer else {
            do {
                let value = try await body(call)
                measurement?.succeeded()
                return value
            } catch {
                measurement?.failed(code: error.rpcFailure.code.rawValue)
                throw error
            }
        }
        let span = tracer.startSpan(method, context: ServiceContext.current ?? .topLevel, ofKind: .client)
        span.attributes["rpc.system"] = "rpcdo"
        span.attributes["rpc.method"] = method
        var call = call
        TraceContextPropagation.inject(span.context, into: &call.metadata, using: tracer)
        let traced = call
        let result = await ServiceContext.withValue(span.context) { () async -> Result<T, RpcError> in
            do throws(RpcError) {
                return .success(try await body(traced))
            } catch {
                return .failure(error)
            }
        }
        switch result {
        case .success(let value):
            measurement?.succeeded()
            span.end()
            return value
        case .failure(let error):
            let code = error.rpcFailure.code.rawValue
            measurement?.failed(code: code)
            span.recordFailure(code: code, message: error.description, error: error)
            span.end()
            throw error
        }
    }
}
