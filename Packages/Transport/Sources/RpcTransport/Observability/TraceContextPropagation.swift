public import ServiceContextModule
public import Tracing

/// Carries a trace across the wire in headers: the client injects its current context into the
/// headers of a WebSocket upgrade, an HTTP batch or a call's metadata, the server extracts it and
/// makes it the parent of the spans it starts for what the request brings.
///
/// The header names and format are the tracer's (W3C `traceparent` for OpenTelemetry).
///
/// ```swift
/// var headers: [String: String] = [:]
/// TraceContextPropagation.inject(ServiceContext.current ?? .topLevel, into: &headers, using: tracer)
/// // on the server
/// let parent = TraceContextPropagation.extract(from: headers, using: tracer)
/// ```
public enum TraceContextPropagation {
    /// Writes `context` into `headers` with the tracer's propagation format.
    public static func inject(_ context: ServiceContext, into headers: inout [String: String], using tracer: any Tracer) {
        tracer.inject(context, into: &headers, using: DictionaryInjector())
    }

    /// The context the tracer reads from `headers` (the top level one when they carry none).
    public static func extract(from headers: [String: String], using tracer: any Tracer) -> ServiceContext {
        var context = ServiceContext.topLevel
        tracer.extract(headers, into: &context, using: DictionaryExtractor())
        return context
    }

    /// Writes header values into a `[String: String]`.
    struct DictionaryInjector: Injector {
        func inject(_ value: String, forKey key: String, into carrier: inout [String: String]) {
            carrier[key] = value
        }
    }

    /// Reads header values from a `[String: String]`, whatever the case of the name.
    struct DictionaryExtractor: Extractor {
        func extract(key: String, from carrier: [String: String]) -> String? {
            if let value = carrier[key] { return value }
            let lowered = key.lowercased()
            return carrier.first { $0.key.lowercased() == lowered }?.value
        }
    }
}
