public import NIOHTTP1
public import RpcTransport
public import ServiceContextModule
public import Tracing

extension TraceContextPropagation {
    /// Writes `context` into `headers` with the tracer's propagation format.
    public static func inject(_ context: ServiceContext, into headers: inout HTTPHeaders, using tracer: any Tracer) {
        tracer.inject(context, into: &headers, using: HTTPHeadersInjector())
    }

    /// The context the tracer reads from `headers` (the top level one when they carry none).
    public static func extract(from headers: HTTPHeaders, using tracer: any Tracer) -> ServiceContext {
        var context = ServiceContext.topLevel
        tracer.extract(headers, into: &context, using: HTTPHeadersExtractor())
        return context
    }
}

/// Writes header values into NIO's `HTTPHeaders`, replacing any of the same name.
struct HTTPHeadersInjector: Injector {
    func inject(_ value: String, forKey key: String, into carrier: inout HTTPHeaders) {
        carrier.replaceOrAdd(name: key, value: value)
    }
}

/// Reads header values from NIO's `HTTPHeaders` (names are case-insensitive there).
struct HTTPHeadersExtractor: Extractor {
    func extract(key: String, from carrier: HTTPHeaders) -> String? {
        carrier.first(name: key)
    }
}
