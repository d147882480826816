#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
import Synchronization
internal import RpcTransport
internal import RpcTransportNIO
internal import NIOHTTP1
internal import ServiceContextModule
internal import Tracing
public import CapnWebCore

/// A running Cap'n Web server: WebSocket sessions on any path and HTTP batches (POST) on one
/// port. Get one from ``withRpcServer(host:port:tls:deflate:configuration:main:isolation:_:)``.
///
/// ```swift
/// try await withRpcServer(main: { Calculator() }) { server in
///     try await withRpcSession(to: server.webSocketURL) { session in
///         let n: Double = try await session.api.square(5)
///     }
/// }
/// ```
public final class RpcServer: Sendable {
    private struct State {
        var sessions: [UInt64: RpcSession<Any>] = [:]
        var nextID: UInt64 = 0
        var batches = 0
        var observers: [UInt64: AsyncStream<Int>.Continuation] = [:]
        var nextObserver: UInt64 = 0
        var accepting = true
    }

    /// The host the server listens on.
    public let host: String
    /// The TCP port the server listens on (the chosen one when asked for port 0).
    public let port: Int
    /// Whether connections use TLS (`wss` and `https`).
    public let usesTLS: Bool
    let configuration: Configuration
    let makeMain: @Sendable (RpcConnectionInfo) -> any RpcTarget
    /// The transport server it runs on, for its graceful shutdown.
    let transportServer: TransportServer?
    private let state = Mutex(State())

    init(
        host: String,
        port: Int,
        usesTLS: Bool,
        configuration: Configuration,
        makeMain: @escaping @Sendable (RpcConnectionInfo) -> any RpcTarget,
        transportServer: TransportServer? = nil
    ) {
        self.host = host
        self.port = port
        self.usesTLS = usesTLS
        self.configuration = configuration
        self.makeMain = makeMain
        self.transportServer = transportServer
    }

    private var authority: String {
        let name = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "\(name):\(port)"
    }

    /// `ws://host:port/ws` (`wss` with TLS): WebSocket sessions are served on any path.
    public var webSocketURL: URL {
        Self.url("\(usesTLS ? "wss" : "ws")://\(authority)/ws")
    }

    /// `http://host:port/rpc` (`https` with TLS): batches are served on any path.
    public var batchURL: URL {
        Self.url("\(usesTLS ? "https" : "http")://\(authority)/rpc")
    }

    private static func url(_ text: String) -> URL {
        URL(string: text) ?? URL(filePath: "/")
    }

    /// The WebSocket sessions open right now, one per connected client; each one's `api`
    /// is that client's main object (usually none).
    public var sessions: [RpcSession<Any>] {
        state.withLock { Array($0.sessions.values) }
    }

    /// How many WebSocket sessions are open right now.
    public var sessionCount: Int {
        state.withLock { $0.sessions.count }
    }

    /// The number of open WebSocket sessions each time it changes, starting with the current one.
    public func sessionCounts() -> AsyncStream<Int> {
        let (stream, continuation) = AsyncStream<Int>.makeStream()
        let current = state.withLock { state -> Int in
            let id = state.nextObserver
            state.nextObserver += 1
            state.observers[id] = continuation
            continuation.onTermination = { [weak self] _ in
                _ = self?.state.withLock { $0.observers.removeValue(forKey: id) }
            }
            return state.sessions.count
        }
        continuation.yield(current)
        return stream
    }

    /// Waits until exactly `count` WebSocket sessions are open.
    public func waitForSessionCount(_ count: Int) async {
        for await current in sessionCounts() where current == count {
            return
        }
    }

    private func changed(_ body: (inout State) -> Void) {
        let (count, observers) = state.withLock { state -> (Int, [AsyncStream<Int>.Continuation]) in
            body(&state)
            return (state.sessions.count, Array(state.observers.values))
        }
        for observer in observers { observer.yield(count) }
    }

    /// Serves one WebSocket connection until it closes.
    func serve(_ transport: WebSocketTransport, request: WebSocketUpgradeRequest) async {
        let main = makeMain(RpcConnectionInfo(request))
        // The session's spans join the trace the client sent with its upgrade, if any.
        let session = Self.withTraceParent(of: request.headers, configuration) {
            RpcSession<Any>.start(transport: transport, main: main, configuration: configuration)
        }
        var id: UInt64?
        changed { state in
            guard state.accepting else { return }
            id = state.nextID
            state.nextID += 1
            state.sessions[state.nextID - 1] = session
        }
        if id != nil {
            _ = await transport.waitUntilClosed()
        }
        await session.close()
        if let id {
            changed { $0.sessions[id] = nil }
        }
    }

    /// Answers one HTTP batch with a fresh session and main object.
    func answer(_ request: HTTPBatchRequest) async throws -> [TransportMessage] {
        let info = RpcConnectionInfo(request)
        let makeMain = self.makeMain
        let configuration = self.configuration
        // The batch's spans join the trace the client sent with its request, if any.
        return try await Self.withTraceParent(of: request.headers, configuration) {
            try await RpcEndpoint.answer(request.messages, configuration: configuration) { makeMain(info) }
        }
    }

    /// Runs `body` with the trace context the client sent in `headers` as the current one, when
    /// the configuration's tracer records; otherwise just runs it.
    static func withTraceParent<T>(
        of headers: HTTPHeaders, _ configuration: Configuration, _ body: () throws -> T
    ) rethrows -> T {
        guard let tracer = configuration.observability.activeTracer else { return try body() }
        return try ServiceContext.withValue(TraceContextPropagation.extract(from: headers, using: tracer), operation: body)
    }

    /// Runs `body` with the trace context the client sent in `headers` as the current one, when
    /// the configuration's tracer records; otherwise just runs it.
    static func withTraceParent<T>(
        of headers: HTTPHeaders, _ configuration: Configuration, _ body: () async throws -> T
    ) async rethrows -> T {
        guard let tracer = configuration.observability.activeTracer else { return try await body() }
        return try await ServiceContext.withValue(TraceContextPropagation.extract(from: headers, using: tracer), operation: body)
    }

    /// Closes every session and refuses new ones.
    func closeAll() async {
        let sessions = state.withLock { state -> [RpcSession<Any>] in
            state.accepting = false
            return Array(state.sessions.values)
        }
        for session in sessions { await session.close() }
    }

    /// Ends every session-count stream.
    func finishObservers() {
        let observers = state.withLock { state in
            defer { state.observers = [:] }
            return Array(state.observers.values)
        }
        for observer in observers { observer.finish() }
    }
}
