public import ServiceContextModule
public import Tracing

/// Runs one client operation in a client span: a RivetKit action, a Tinyvex mutation or query
/// subscription. The span is a child of the caller's trace context and current while the
/// operation runs; the operation gets its context, to write into the headers of a request it
/// sends (``TraceContextPropagation``). A failure marks the span with its stable code.
///
/// ```swift
/// let value = try await RpcClientSpan.run(
///     "rivetkit.action increment", system: "rivetkit", method: "increment", tracer: tracer,
///     code: { $0.rpcFailure.code.rawValue }
/// ) { context throws(ActorError) in
///     try await send(request, tracing: context)
/// }
/// ```
public enum RpcClientSpan {
    /// Runs `body` in a client span named `operation` with the attributes `rpc.system`,
    /// `rpc.method` and `attributes`, ended once `body` returns or throws.
    ///
    /// - Parameters:
    ///   - operation: The span's name.
    ///   - system: The `rpc.system` attribute (`rivetkit`, `tinyvex`).
    ///   - method: The `rpc.method` attribute (the action's, mutation's or query's name).
    ///   - attributes: More string attributes.
    ///   - tracer: The tracer that records (``RpcObservability/activeTracer``).
    ///   - code: The stable code of a failure, recorded as `rpc.error.code`.
    ///   - body: The operation; it gets the span's context.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    public static func run<T, Failure: Error>(
        _ operation: String,
        system: String,
        method: String,
        attributes: [String: String] = [:],
        tracer: any Tracer,
        code: (Failure) -> String,
        _ body: (ServiceContext) async throws(Failure) -> T
    ) async throws(Failure) -> T {
        let span = tracer.startSpan(operation, context: ServiceContext.current ?? .topLevel, ofKind: .client)
        span.attributes["rpc.system"] = system
        span.attributes["rpc.method"] = method
        for (name, value) in attributes { span.attributes[name] = value }
        let context = span.context
        let result = await ServiceContext.withValue(context) { () async -> Result<T, Failure> in
            do throws(Failure) {
                return .success(try await body(context))
            } catch {
                return .failure(error)
            }
        }
        if case .failure(let error) = result {
            span.recordFailure(code: code(error), message: String(describing: error), error: error)
        }
        span.end()
        return try result.get()
    }
}
