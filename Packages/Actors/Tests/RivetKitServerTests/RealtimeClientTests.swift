@testable import RivetKit
import RivetKitServer
import NIOHTTP1
import RpcTransportNIO
import RpcDoTesting
import Synchronization
import Testing

@Suite("The realtime client against the actor server in process")
struct RealtimeClientTests {
    /// Makes `count` actions on `connection` from tasks started one after another, each once
    /// the previous one is waiting, so that they are made in that order.
    static func makeInOrder(
        _ connection: ActorConnection, count: Int, _ action: @escaping @Sendable (Int) async throws -> JSONValue
    ) async throws -> [Task<JSONValue, any Error>] {
        var made: [Task<JSONValue, any Error>] = []
        let before = connection.pendingActionCount
        for index in 0 ..< count {
            made.append(Task { try await action(index) })
            try await waitUntil("action \(index) to be made") { connection.pendingActionCount == before + index + 1 }
        }
        return made
    }

    @Test("A realtime connection: actions queued before Init, events of subscribed names, per-action errors, dispose")
    func realtime() async throws {
        try await InProcessServer.with { (server: InProcessServer) async throws in
            let client = server.client()
            let connection = client.getOrCreate("counter", key: ["rt"]).connect()
            let events = connection.events("newCount")
            async let first = connection.action("increment", args: [2])
            connection.start()
            #expect(try await first == 2)
            #expect(connection.status == .connected)
            #expect(connection.actorId != nil)
            var iterator = events.makeAsyncIterator()
            #expect(await iterator.next() == [2])
            #expect(try await connection.action("increment", args: [3]) == 5)
            #expect(await iterator.next() == [5])
            let failure = await #expect(throws: ActorError.self) { try await connection.action("fail", args: []) }
            #expect(failure?.group == "user")
            #expect(connection.status == .connected)
            await connection.dispose()
            #expect(connection.status == .idle)
            // An action made while idle waits; dispose rejects it.
            let waiting = Task { try await connection.action("getCount", args: []) }
            try await waitUntil("the action to wait") { connection.pendingActionCount == 1 }
            await connection.dispose()
            let afterDispose = await #expect(throws: ActorError.self) { try await waiting.value }
            #expect(afterDispose?.code == "disposed")
            try await waitUntil("the server to let go of the connection") { server.openCount == 0 }
            await client.close()
        }
    }

    @Test("Actions made before Init are sent after it in the order they were made")
    func heldActionsKeepTheirOrder() async throws {
        try await InProcessServer.with { (server: InProcessServer) async throws in
            let client = server.client()
            let connection = client.getOrCreate("counter", key: ["order"]).connect()
            // increment(2^i) answers the running total: only the order made gives these sums.
            let made = try await Self.makeInOrder(connection, count: 8) { index in
                try await connection.action("increment", args: [.integer(1 << Int64(index))])
            }
            #expect(server.openedCount == 0)
            connection.start()
            var answers: [JSONValue] = []
            for task in made { answers.append(try await task.value) }
            #expect(answers == (0 ..< 8).map { JSONValue.integer((1 << Int64($0 + 1)) - 1) })
            await connection.dispose()
            await client.close()
        }
    }

    @Test("A listener that does not read keeps only the newest maxBufferedEvents events")
    func slowConsumer() async throws {
        try await InProcessServer.with { (server: InProcessServer) async throws in
            let client = server.client { $0.maxBufferedEvents = 2 }
            let connection = client.getOrCreate("counter", key: ["slow"]).connect()
            let events = connection.events("newCount")
            connection.start()
            for _ in 0 ..< 5 { _ = try await connection.action("increment", args: [1]) }
            // The events come before this answer on the same connection, so all five have arrived.
            #expect(try await connection.action("getCount", args: []) == 5)
            var iterator = events.makeAsyncIterator()
            #expect(await iterator.next() == [4])
            #expect(await iterator.next() == [5])
            await connection.dispose()
            await client.close()
        }
    }

    @Test("Users of one identity hash share one connection, released when the last one leaves")
    func sharedConnections() async throws {
        try await InProcessServer.with { (server: InProcessServer) async throws in
            let client = server.client()
            let options = ActorOptions(name: "counter", key: ["shared"], params: ["user": "a"])
            let first = client.acquireConnection(options)
            var withInput = options
            withInput.createWithInput = 3
            let second = client.acquireConnection(withInput)
            #expect(first === second)
            #expect(client.connectionUsers(hash: options.hash) == 2)
            first.start()
            try await ClientTests.waitFor(first, .connected)
            await client.releaseConnection(first)
            #expect(first.status == .connected)
            await client.releaseConnection(second)
            #expect(first.status == .idle)
            #expect(client.connectionUsers(hash: options.hash) == 0)
            try await waitUntil("the server to let go of the connection") { server.openCount == 0 }
            await client.close()
        }
    }

    @Test("After the server drops every connection the client reconnects, subscribes after the new Init, later events arrive and the count is kept")
    func serverRestart() async throws {
        try await InProcessServer.with { (server: InProcessServer) async throws in
            let client = server.client {
                $0.reconnectBackoff = Backoff(initialDelay: .milliseconds(1), maxDelay: .milliseconds(5))
            }
            let connection = client.getOrCreate("counter", key: ["restart"]).connect()
            let errors = connection.errors()
            connection.start()
            #expect(try await connection.action("increment", args: [4]) == 4)
            server.accepting = false
            server.dropConnections()
            var errorIterator = errors.makeAsyncIterator()
            #expect(await errorIterator.next()?.code == "connection_lost")
            #expect(connection.status == .disconnected)
            // Subscribed while disconnected: sent after the next Init.
            let events = connection.events("newCount")
            server.accepting = true
            try await ClientTests.waitFor(connection, .connected)
            #expect(try await connection.action("increment", args: [1]) == 5)
            var iterator = events.makeAsyncIterator()
            #expect(await iterator.next() == [5])
            #expect(server.openedCount == 2)
            await connection.dispose()
            await client.close()
        }
    }
}

@Suite("The realtime client on the one connection supervisor")
struct SupervisedConnectionTests {
    @Test("Actions made before and after start, while the actor's Init is held back, are sent after it in the order they were made")
    func heldAcrossStart() async throws {
        let gate = ServerLimitTests.Gate()
        try await InProcessServer.with { (server: InProcessServer) async throws in
            server.mode = .serveAfter { await gate.pass() }
            let client = server.client()
            let connection = client.getOrCreate("counter", key: ["held"]).connect()
            let increment: @Sendable (Int) async throws -> JSONValue = { index in
                try await connection.action("increment", args: [.integer(1 << Int64(index))])
            }
            var made = try await RealtimeClientTests.makeInOrder(connection, count: 3, increment)
            connection.start()
            try await waitUntil("the server to hold the socket") { gate.waiting == 1 }
            #expect(connection.status == .connecting)
            for index in 3 ..< 8 {
                made.append(Task { try await increment(index) })
                try await waitUntil("action \(index) to be made") { connection.pendingActionCount == index + 1 }
            }
            gate.open()
            var answers: [JSONValue] = []
            for task in made { answers.append(try await task.value) }
            #expect(answers == (0 ..< 8).map { JSONValue.integer((1 << Int64($0 + 1)) - 1) })
            #expect(connection.status == .connected)
            await connection.dispose()
            await client.close()
        }
    }

    @Test("Past maxQueuedActions an action made while not connected is refused at once with client.not_connected")
    func queueLimit() async throws {
        try await InProcessServer.with { (server: InProcessServer) async throws in
            let client = server.client { $0.maxQueuedActions = 2 }
            let connection = client.getOrCreate("counter", key: ["limit"]).connect()
            let made = try await RealtimeClientTests.makeInOrder(connection, count: 2) { _ in
                try await connection.action("increment", args: [1])
            }
            let refused = await #expect(throws: ActorError.self) { try await connection.action("increment", args: [1]) }
            #expect(refused?.code == "not_connected")
            connection.start()
            #expect(try await made[0].value == 1)
            #expect(try await made[1].value == 2)
            await connection.dispose()
            await client.close()
        }
    }

    @Test("dispose closes the socket with 1000 Disposed and rejects what waits with client.disposed")
    func disposeCloses() async throws {
        let closures = Mutex<[TransportClosure]>([])
        try await InProcessServer.with { (server: InProcessServer) async throws in
            server.mode = .handle { transport, attempt in
                _ = try? transport.enqueue(.text(RivetMessageCodec.encode(ServerMessage.initialize(
                    actorId: "actor", connectionId: "conn-\(attempt)"))))
                let closure = await InProcessServer.closure(of: transport)
                closures.withLock { $0.append(closure) }
            }
            let client = server.client()
            let connection = client.getOrCreate("counter", key: ["dispose"]).connect()
            connection.start()
            try await ClientTests.waitFor(connection, .connected)
            // This server never answers: the action waits until the dispose.
            let waiting = Task { try await connection.action("getCount", args: []) }
            try await waitUntil("the action to wait") { connection.pendingActionCount == 1 }
            await connection.dispose()
            let error = await #expect(throws: ActorError.self) { try await waiting.value }
            #expect(error?.code == "disposed")
            #expect(connection.status == .idle)
            try await waitUntil("the server to see the close") { closures.withLock { $0.count } == 1 }
            #expect(closures.withLock { $0.map(\.code) } == [.normal])
            #expect(closures.withLock { $0.map(\.reason) } == ["Disposed"])
        }
    }

    @Test("The metadata lookup gives up after metadataLookupAttempts with client.http_error")
    func metadataLookupBounded() async throws {
        let calls = Counter()
        let transports = ClientTransports(
            openSocket: { _, _ in throw TransportError(code: .connectFailed, message: "no sockets here") },
            makeHTTPClient: { (_: String, _: [String: String]) throws(TransportError) -> any ActorHTTPClient in
                FailingHTTPClient(calls: calls)
            })
        var config = ClientConfig(endpoint: "http://in-process", token: nil, namespace: nil)
        config.metadataLookupAttempts = 2
        let client = RivetKitClient(config, transports: transports)
        let error = await #expect(throws: ActorError.self) { try await client.resolvedConfig() }
        #expect(error?.code == "http_error")
        #expect(calls.value == 2)
        await client.close()
    }

    /// A count shared with a stub.
    final class Counter: Sendable {
        private let count = Mutex(0)
        var value: Int { count.withLock { $0 } }
        func increment() { count.withLock { $0 += 1 } }
    }

    /// Answers every request with 503, counting them.
    struct FailingHTTPClient: ActorHTTPClient {
        let calls: Counter

        func execute(_ request: HTTPClientRequest) async throws(TransportError) -> HTTPClientResponse {
            calls.increment()
            return HTTPClientResponse(status: 503, headers: [:], body: [])
        }

        func close() async {}
    }
}
