import Foundation
import NIOHTTP1
import RpcDoTesting
import RpcTransport
import RpcWire
import Synchronization
import Tinyvex
import TinyvexProtocol
import TinyvexServer

/// An embedded Tinyvex server that clients reach over in-memory pairs (see ``factory``): what
/// the client tests run against, without sockets or timing guesses.
///
/// The test drives the network: it stops the server and starts it again (a restart: the
/// factory refuses connections meanwhile), cuts every link, makes new links silent, and holds
/// the answers of mutations so that it knows a mutation is in flight when it cuts the link.
final class InMemoryServer: Sendable {
    /// A server that is up: its connections arrive on `connections`, and `task` runs it.
    private struct Running: Sendable {
        let server: TinyvexServer
        /// The server's end of each link, with the headers the client's factory was given.
        let connections: AsyncStream<(InMemoryTransport, HTTPHeaders)>.Continuation
        let task: Task<Void, any Error>
    }

    private struct State {
        var running: Running?
        /// The server's ends of the links opened so far (closed ones included).
        var ends: [InMemoryTransport] = []
        var connects = 0
        var silent = false
        var answersToHold = 0
        var heldAnswers = 0
        var requests: [(method: String, params: JSONValue?)] = []
        var connectAnswersToHold = 0
        var heldConnectAnswers: [(end: InMemoryTransport, message: TransportMessage)] = []
    }

    let schema: TinyvexSchema
    let configuration: TinyvexServerConfiguration
    private let state = Mutex(State())

    init(schema: TinyvexSchema = TinyvexDemoSchema.schema(), configuration: TinyvexServerConfiguration = TinyvexServerConfiguration()) {
        self.schema = schema
        self.configuration = configuration
    }

    /// Starts the server on `database`; returns once it serves.
    func start(database: TinyvexDatabase = .inMemory) async throws {
        let (connections, connectionsContinuation) = AsyncStream<(InMemoryTransport, HTTPHeaders)>.makeStream()
        let (ready, readyContinuation) = AsyncStream<TinyvexServer>.makeStream()
        let (schema, configuration) = (self.schema, self.configuration)
        // Owned by `stop()`, which ends the stream of connections and awaits it.
        let task = Task {
            try await TinyvexServer.withEmbeddedServer(schema: schema, database: database, configuration: configuration) { server in
                readyContinuation.yield(server)
                readyContinuation.finish()
                await withDiscardingTaskGroup { group in
                    for await (end, headers) in connections {
                        // The headers stand for the upgrade's: they carry the client's trace.
                        group.addTask { await server.serve(end, upgradeHeaders: headers) }
                    }
                }
            }
        }
        var iterator = ready.makeAsyncIterator()
        guard let server = await iterator.next() else {
            try await task.value
            throw CancellationError()
        }
        state.withLock { $0.running = Running(server: server, connections: connectionsContinuation, task: task) }
    }

    /// Stops the server: every link closes (going away), and the factory refuses connections
    /// until the next ``start(database:)``. Returns once the server is down.
    func stop() async throws {
        let (running, ends) = state.withLock { state in
            defer { state.running = nil }
            return (state.running, state.ends)
        }
        guard let running else { return }
        running.connections.finish()
        for end in ends { await end.close(code: .goingAway, reason: "the server stopped") }
        try await running.task.value
    }

    /// Opens a link to the server, as a client's transport factory.
    var factory: TinyvexClient.TransportFactory {
        { [self] headers in try self.connect(headers: headers) }
    }

    private func connect(headers: [String: String]) throws(TransportError) -> any MessageTransport {
        let (client, end) = InMemoryTransport.makePair()
        let (running, silent) = try state.withLock { state throws(TransportError) in
            guard let running = state.running else {
                throw TransportError(code: .connectFailed, message: "no server is running")
            }
            state.ends.append(end)
            state.connects += 1
            return (running, state.silent)
        }
        end.inject(.drop { [self, weak end] message in
            guard let end else { return false }
            return holds(message) || holdsConnectAnswer(message, on: end)
        })
        client.inject(.drop { [self] message in
            // Watched, never dropped: the requests clients send.
            if let value = try? JSONParser().parse(message.bytes), let method = value["method"]?.stringValue {
                state.withLock { $0.requests.append((method, value["params"])) }
            }
            return false
        })
        if silent {
            // Accepted, never served: nothing is answered, pings included.
            end.setAnswersPings(false)
        } else {
            running.connections.yield((end, HTTPHeaders(headers.map { ($0.key, $0.value) })))
        }
        return client
    }

    /// The running server (for its counters).
    var server: TinyvexServer? { state.withLock { $0.running?.server } }

    /// The number of live query streams of the running server.
    var liveQueryCount: Int {
        get async { await server?.liveQueryCount ?? 0 }
    }

    /// How many links clients have opened.
    var connects: Int { state.withLock { $0.connects } }

    /// The method of every request clients sent, in order.
    var requestMethods: [String] { state.withLock { $0.requests.map(\.method) } }

    /// The `requestId` of every `tinyvex/mutation` request clients sent, in order.
    var mutationRequests: [String] {
        state.withLock { state in
            state.requests.compactMap { $0.method == TinyvexMethod.mutation ? $0.params?["requestId"]?.stringValue : nil }
        }
    }

    /// How many mutation answers were held back so far.
    var heldAnswers: Int { state.withLock { $0.heldAnswers } }

    /// Holds back (never delivers) the answers of the next `count` mutations the server runs.
    func holdMutationAnswers(_ count: Int) {
        state.withLock { $0.answersToHold += count }
    }

    /// Holds back the answers to the next `count` `tinyvex/connect` requests until
    /// ``releaseConnectAnswers()``: the clients' handshakes wait meanwhile.
    func holdConnectAnswers(_ count: Int) {
        state.withLock { $0.connectAnswersToHold += count }
    }

    /// How many `tinyvex/connect` answers are held back now.
    var heldConnectAnswerCount: Int { state.withLock { $0.heldConnectAnswers.count } }

    /// Delivers the held `tinyvex/connect` answers.
    func releaseConnectAnswers() {
        let held = state.withLock { state in
            defer { state.heldConnectAnswers = [] }
            return state.heldConnectAnswers
        }
        for (end, message) in held { try? end.enqueue(message) }
    }

    /// New links are accepted but never served (a server that hangs); `false` serves them again.
    func setSilent(_ silent: Bool) {
        state.withLock { $0.silent = silent }
    }

    /// Cuts every open link without a close handshake, as when the network drops.
    func cutLinks() {
        for end in state.withLock({ $0.ends }) { end.disconnect() }
    }

    /// The server's ends of the links, newest last.
    var ends: [InMemoryTransport] { state.withLock { $0.ends } }

    /// Whether `message` (from the server, on `end`) is a `tinyvex/connect` answer to hold back
    /// now; it is kept for ``releaseConnectAnswers()``.
    private func holdsConnectAnswer(_ message: TransportMessage, on end: InMemoryTransport) -> Bool {
        guard let value = try? JSONParser().parse(message.bytes), value["result"]?["serverVersion"] != nil else { return false }
        return state.withLock { state in
            guard state.connectAnswersToHold > 0 else { return false }
            state.connectAnswersToHold -= 1
            state.heldConnectAnswers.append((end, message))
            return true
        }
    }

    /// Whether `message` (from the server) is a mutation's answer to hold back now.
    private func holds(_ message: TransportMessage) -> Bool {
        guard let value = try? JSONParser().parse(message.bytes), case .object(let result)? = value["result"],
            result["requestId"] != nil, result["seq"] != nil
        else { return false }
        return state.withLock { state in
            guard state.answersToHold > 0 else { return false }
            state.answersToHold -= 1
            state.heldAnswers += 1
            return true
        }
    }
}

/// Runs `body` (on the caller's isolation) with a started in-memory server of `schema`,
/// stopped afterwards even when `body` throws.
func withInMemoryServer<T>(
    schema: TinyvexSchema = TinyvexDemoSchema.schema(),
    configuration: TinyvexServerConfiguration = TinyvexServerConfiguration(),
    database: TinyvexDatabase = .inMemory,
    isolation: isolated (any Actor)? = #isolation,
    _ body: (InMemoryServer) async throws -> T
) async throws -> T {
    let server = InMemoryServer(schema: schema, configuration: configuration)
    try await server.start(database: database)
    let outcome: Result<T, any Error>
    do {
        outcome = .success(try await body(server))
    } catch {
        outcome = .failure(error)
    }
    try await server.stop()
    return try outcome.get()
}
