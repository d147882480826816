import RpcDo
import Synchronization

/// Records the calls interceptors see, in order.
final class CallLog: Sendable {
    private let entries = Mutex<[String]>([])
    var all: [String] { entries.withLock { $0 } }
    func append(_ entry: String) { entries.withLock { $0.append(entry) } }
}

/// An interceptor that logs before and after each call under a name.
struct LoggingInterceptor: ClientInterceptor {
    let name: String
    let log: CallLog

    func intercept<Output>(_ call: ClientCall, next: (ClientCall) async throws -> Output) async throws -> Output {
        log.append("\(name)>\(call.method)")
        defer { log.append("\(name)<\(call.method)") }
        return try await next(call)
    }
}

/// An interceptor that refuses calls to one method.
struct DenyInterceptor: ClientInterceptor {
    func intercept<Output>(_ call: ClientCall, next: (ClientCall) async throws -> Output) async throws -> Output {
        if call.method.contains("forbidden") { throw RpcError.authenticationFailed("denied by policy") }
        return try await next(call)
    }
}
