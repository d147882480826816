#if canImport(FoundationEssentials)
internal import FoundationEssentials
#else
internal import Foundation
#endif
internal import CapnWeb
internal import RpcTransportNIO

/// Opens the session `capnweb call` evaluates on: a WebSocket session, or an HTTP batch.
enum CallConnection {
    /// Connects to `options.url` (`ws://` or `wss://`) with the call's timeout and tracing.
    static func open(
        _ options: CallOptions, trace: (@Sendable (Bool, String) -> Void)?
    ) async throws(RpcError) -> RpcSession<Any> {
        guard let url = URL(string: options.url) else {
            throw .invalidTarget("'\(options.url)' is not a URL")
        }
        return try await RpcSession<Any>.connect(to: url) { configuration in
            configure(&configuration, options: options, trace: trace)
        }
    }

    /// Runs `body` on the main object of an HTTP batch to `options.url` (`http://` or
    /// `https://`): the calls `body` makes travel in one POST, sent once it awaits.
    static func batch(
        _ options: CallOptions, trace: (@Sendable (Bool, String) -> Void)?,
        _ body: (Ref<Any>) async -> CallOutcome
    ) async -> CallOutcome {
        guard let url = URL(string: options.url) else {
            return .failed("'\(options.url)' is not a URL")
        }
        do {
            return try await RpcSession<Any>.batch(
                url: url,
                configure: { configuration in configure(&configuration, options: options, trace: trace) },
                execute: { main in await body(main) })
        } catch {
            return .failed("cannot send the batch to \(options.url): \(error)")
        }
    }

    /// Applies the call's options to a session configuration.
    ///
    /// For a batch, the HTTP request may take a second longer than `--timeout`, so that the
    /// command's own deadline is what reports a slow answer; and the batch leaves only after
    /// 50 ms without a new message, so that the pull of the last value, sent once every
    /// statement is evaluated, still travels with the calls.
    static func configure(
        _ configuration: inout Configuration, options: CallOptions, trace: (@Sendable (Bool, String) -> Void)?
    ) {
        configuration.timeout = options.batch ? options.timeout + .seconds(1) : options.timeout
        configuration.connectTimeout = min(configuration.connectTimeout, options.timeout)
        configuration.batchDelay = max(configuration.batchDelay, .milliseconds(50))
        configuration.trace = trace
        configuration.headers.merge(options.headers) { _, given in given }
        if !options.caCertificates.isEmpty {
            var tls = configuration.tls ?? .default
            tls.trustRoots = .certificates(options.caCertificates.map { .file(path: $0) })
            configuration.tls = tls
        }
    }
}
