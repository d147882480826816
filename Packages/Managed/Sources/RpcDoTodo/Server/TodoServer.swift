#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
import Synchronization
public import CapnWeb

/// The Todo API served over Cap'n Web (WebSocket sessions and HTTP batches) on one port, with a
/// scoped lifecycle, a restart on the same port and traffic counters.
///
/// ```swift
/// try await TodoServer.withServer { server in
///     print("listening on", server.webSocketURL)
///     try await server.restart()            // every client is dropped, then it listens again
///     print(server.traffic.pulls, "answers asked for")
/// }
/// ```
///
/// The ``store`` outlives restarts: clients that reconnect find their data.
public final class TodoServer: Sendable {
    /// What the listening loop is asked to do next.
    enum Command: Sendable {
        /// Stop listening, wait `downtime`, listen again on the same port, then resume the continuation.
        case restart(Duration, CheckedContinuation<Void, any Error>)
        /// Stop listening for good.
        case stop
    }

    private struct State {
        var current: RpcServer?
        var port = 0
        var webSocketURL: URL?
        var batchURL: URL?
        var traffic = TodoTraffic()
        var restarts = 0
        var authorizations: [String?] = []
    }

    /// The data every connection and every restart shares.
    public let store: TodoStore
    /// Where the server listens and how its sessions behave.
    public let configuration: TodoServerConfiguration
    private let state = Mutex(State())
    private let commands: AsyncStream<Command>.Continuation

    private init(store: TodoStore, configuration: TodoServerConfiguration, commands: AsyncStream<Command>.Continuation) {
        self.store = store
        self.configuration = configuration
        self.commands = commands
    }

    /// Serves the Todo API while `body` runs, then closes every session and stops listening.
    ///
    /// - Parameters:
    ///   - configuration: Where to listen (default `127.0.0.1`, a free port) and the session settings.
    ///   - store: The data to serve (default: a new store with the demo data).
    ///   - isolation: Where `body` runs (the caller's actor, by default).
    ///   - body: What to do while the server runs.
    /// - Returns: What `body` returns.
    /// - Throws: A transport error when the server cannot listen, or what `body` throws.
    public static func withServer<T: Sendable>(
        configuration: TodoServerConfiguration = TodoServerConfiguration(),
        store: TodoStore = TodoStore(),
        isolation: isolated (any Actor)? = #isolation,
        _ body: (TodoServer) async throws -> T
    ) async throws -> T {
        let (commandStream, commandSink) = AsyncStream<Command>.makeStream()
        let server = TodoServer(store: store, configuration: configuration, commands: commandSink)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            try await withCheckedThrowingContinuation { (ready: CheckedContinuation<Void, any Error>) in
                group.addTask { try await server.run(commands: commandStream, ready: ready) }
            }
            let outcome: Result<T, any Error>
            do {
                outcome = .success(try await body(server))
            } catch {
                outcome = .failure(error)
            }
            commandSink.yield(.stop)
            commandSink.finish()
            try await group.waitForAll()
            return try outcome.get()
        }
    }

    /// The TCP port the server listens on (kept across restarts).
    public var port: Int {
        state.withLock { $0.port }
    }

    /// `ws://host:port/ws`: where clients open WebSocket sessions.
    public var webSocketURL: URL {
        state.withLock { $0.webSocketURL } ?? URL(filePath: "/")
    }

    /// `http://host:port/rpc`: where clients post HTTP batches.
    public var batchURL: URL {
        state.withLock { $0.batchURL } ?? URL(filePath: "/")
    }

    /// The WebSocket sessions open right now (none while restarting); each one's
    /// `getStats()` shows what its client still holds.
    public var sessions: [RpcSession<Any>] {
        state.withLock { $0.current?.sessions ?? [] }
    }

    /// How many times the server has restarted.
    public var restarts: Int {
        state.withLock { $0.restarts }
    }

    /// Connections and frames seen so far.
    public var traffic: TodoTraffic {
        state.withLock { $0.traffic }
    }

    /// The `Authorization` header of each WebSocket session's upgrade, oldest first (`nil` for
    /// a session opened without one), across restarts: what a client's credentials were when
    /// each of its connections opened.
    public var authorizations: [String?] {
        state.withLock { $0.authorizations }
    }

    /// Sets every traffic counter back to zero.
    public func resetTraffic() {
        state.withLock { $0.traffic = TodoTraffic() }
    }

    /// Drops every client and stops listening, waits `downtime`, then listens again on the same
    /// port; returns once the server accepts connections again.
    ///
    /// - Throws: The transport error when the port cannot be bound again, or
    ///   `CancellationError` when the server has already stopped.
    public func restart(downtime: Duration = .zero) async throws {
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
            if case .terminated = commands.yield(.restart(downtime, done)) {
                done.resume(throwing: CancellationError())
            }
        }
    }

    /// Listens, restarting on request, until told to stop or cancelled; then fails the
    /// restarts still asked for, and any asked for later, with `CancellationError`.
    private func run(commands: AsyncStream<Command>, ready: CheckedContinuation<Void, any Error>) async throws {
        var iterator = commands.makeAsyncIterator()
        do {
            try await listen(&iterator, ready: ready)
        } catch {
            await refuseRestarts(&iterator)
            throw error
        }
        await refuseRestarts(&iterator)
    }

    /// Ends the command stream and resumes every restart left in it with `CancellationError`.
    private func refuseRestarts(_ iterator: inout AsyncStream<Command>.Iterator) async {
        commands.finish()
        while let command = await iterator.next() {
            if case .restart(_, let done) = command {
                done.resume(throwing: CancellationError())
            }
        }
    }

    /// The listening loop.
    private func listen(_ iterator: inout AsyncStream<Command>.Iterator, ready: CheckedContinuation<Void, any Error>) async throws {
        var waiter: CheckedContinuation<Void, any Error>? = ready
        var port = configuration.port
        var sessionConfiguration = configuration.session
        let userTrace = configuration.session.trace
        sessionConfiguration.trace = { [weak self] sent, text in
            self?.state.withLock { $0.traffic.record(sent: sent, text: text) }
            userTrace?(sent, text)
        }
        let store = self.store
        while true {
            var next: Command?
            do {
                try await withRpcServer(
                    host: configuration.host, port: port, configuration: sessionConfiguration,
                    main: { [weak self] info in
                        self?.state.withLock { state in
                            state.traffic.connections += 1
                            if info.kind == .webSocket { state.authorizations.append(info.header("Authorization")) }
                        }
                        return TodoAPI(store: store)
                    }
                ) { server in
                    port = server.port
                    state.withLock { state in
                        state.current = server
                        state.port = server.port
                        state.webSocketURL = server.webSocketURL
                        state.batchURL = server.batchURL
                    }
                    waiter?.resume()
                    waiter = nil
                    next = await iterator.next()
                    state.withLock { $0.current = nil }
                }
            } catch {
                waiter?.resume(throwing: error)
                waiter = nil
                throw error
            }
            guard case .restart(let downtime, let done)? = next else {
                waiter?.resume(throwing: CancellationError())
                return
            }
            state.withLock { $0.restarts += 1 }
            if downtime > .zero {
                try? await Task.sleep(for: downtime)
            }
            waiter = done
        }
    }
}
