#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import CapnWebCore

/// Connects to `url`, runs `body` with the session and closes it when `body` returns or throws.
///
/// ```swift
/// let n: Int = try await withRpcSession(to: url, as: API.self) { session in
///     try await session.api.square(5)
/// }
/// ```
///
/// - Parameters:
///   - url: A `ws://` or `wss://` URL.
///   - api: The type of the server's main object; `Any` for untyped calls.
///   - configure: Changes the default ``Configuration``.
///   - body: What to do with the session.
/// - Returns: What `body` returns.
/// - Throws: What `RpcSession.connect(to:configure:)`
///   throws, or what `body` throws.
public func withRpcSession<API, Value>(
    to url: URL,
    as api: API.Type,
    configure: ((inout Configuration) -> Void)? = nil,
    isolation: isolated (any Actor)? = #isolation,
    _ body: (RpcSession<API>) async throws -> Value
) async throws -> Value {
    var configuration = Configuration()
    configure?(&configuration)
    let session = try await RpcSession<API>.connect(to: url, configuration: configuration)
    let result: Value
    do {
        result = try await body(session)
    } catch {
        await session.close()
        throw error
    }
    await session.close()
    return result
}

/// Connects to `url`, runs `body` with an untyped session (`RpcSession<Any>`) and closes it
/// when `body` returns or throws.
///
/// ```swift
/// try await withRpcSession(to: url) { session in
///     let result: Int = try await session.api.doWork()
/// }
/// ```
///
/// - Parameters:
///   - url: A `ws://` or `wss://` URL.
///   - configure: Changes the default ``Configuration``.
///   - body: What to do with the session.
/// - Returns: What `body` returns.
/// - Throws: What `RpcSession.connect(to:configure:)`
///   throws, or what `body` throws.
public func withRpcSession<Value>(
    to url: URL,
    configure: ((inout Configuration) -> Void)? = nil,
    isolation: isolated (any Actor)? = #isolation,
    _ body: (RpcSession<Any>) async throws -> Value
) async throws -> Value {
    try await withRpcSession(to: url, as: Any.self, configure: configure, isolation: isolation, body)
}
