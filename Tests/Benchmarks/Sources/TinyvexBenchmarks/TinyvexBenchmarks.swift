import Foundation
import GRDB
import RpcTransport
import RpcTransportNIO
import RpcWire
import Synchronization
import TinyvexServer

/// `make bench-tinyvex`. Prints mutations per second of the demo schema's `messages.send` with
/// 100 live subscriptions of `messages.list` on the channel written to, from 32 connections
/// each awaiting its answer before sending again, on an SQLite file with the server's default
/// durability; in the same run the rate of bare GRDB transactions doing the same inserts on a
/// file with the same settings, one transaction each, and `ratio
/// tinyvex-mutations-vs-bare-sqlite X.XX` (the goal is 0.5 or more). Then the time from sending
/// a mutation until all 1,000 subscribed connections have the new value (p50, p99); the same for
/// a bare SQLite write followed by a bare WebSocket broadcast to 1,000 connections; and `ratio
/// tinyvex-fanout-vs-bare X.XX` (Tinyvex's p50 over the bare p50; the goal is 2.0 or less).
/// With PostgreSQL (`RPC_POSTGRES_URL`), ``ClusterSide`` then measures the same on one node and
/// on three nodes of one database. `--quick` runs fewer rounds; `--mutations-only` stops after
/// the mutation rates.
@main
struct TinyvexBenchmarks {
    struct Counter: Codable { let n: Int64 }
    struct Empty: Codable {}

    static func schema() -> TinyvexSchema {
        var schema = TinyvexSchema()
        schema.query("counter.get") { (context, _: Empty) -> Int64 in
            try context.get("counters", id: 1)?["n"]?.int64Value ?? 0
        }
        schema.mutation("counter.bump") { (context, _: Empty) -> Int64 in
            let current = try context.get("counters", id: 1)?["n"]?.int64Value
            guard let current else {
                _ = try context.insert("counters", ["n": 1])
                return 1
            }
            try context.replace("counters", id: 1, with: ["n": .integer(current + 1)])
            return current + 1
        }
        return schema
    }

    static func main() async throws {
        let quick = CommandLine.arguments.contains("--quick")
        let connections = 1_000
        let rounds = quick ? 20 : 100
        let mutations = quick ? 2_000 : 10_000
        print("tinyvex benchmark: \(mutations) mutations from \(writerCount) connections with 100 subscriptions; \(rounds) fan-out rounds to \(connections) connections")

        let (perSecond, watcherMessages) = try await mutationRate(mutations: mutations)
        let barePerSecond = try bareInsertRate(inserts: mutations)
        print(String(
            format: "mutations/s with 100 live subscriptions (SQLite file, %d connections sending, %d channels watched): %.0f (the watchers received %d updates meanwhile)",
            writerCount, channelCount, perSecond, watcherMessages))
        print(String(format: "bare GRDB transactions/s, one insert each (SQLite file, same settings): %.0f", barePerSecond))
        print(String(format: "ratio tinyvex-mutations-vs-bare-sqlite %.2f", perSecond / barePerSecond))
        let mutationsOnly = CommandLine.arguments.contains("--mutations-only")
        if mutationsOnly {
            if let clusterURL = ClusterSide.url {
                try await ClusterSide.run(url: clusterURL, mutations: mutations, connections: connections, rounds: 0)
            }
            return
        }

        let tinyvexLatencies = try await withTinyvex { url in
            try await fanoutRounds(receiving: [url], sending: url, connections: connections, rounds: rounds) { try await $0.bump() }
        }
        let bareLatencies = try await bare(connections: connections, rounds: rounds)
        let tinyvex = percentiles(tinyvexLatencies)
        let floor = percentiles(bareLatencies)
        print(String(format: "tinyvex mutation to %d connections: p50 %.3f ms, p99 %.3f ms", connections, tinyvex.p50 * 1000, tinyvex.p99 * 1000))
        print(String(format: "bare SQLite write + WebSocket broadcast to %d connections: p50 %.3f ms, p99 %.3f ms", connections, floor.p50 * 1000, floor.p99 * 1000))
        print(String(format: "ratio tinyvex-fanout-vs-bare %.2f", tinyvex.p50 / floor.p50))
        if let clusterURL = ClusterSide.url {
            try await ClusterSide.run(url: clusterURL, mutations: mutations, connections: connections, rounds: rounds)
        }
    }

    /// Connections sending mutations at once in the mutation benchmark.
    static let writerCount = 32
    /// Live subscriptions of `messages.list` in the mutation benchmark, one per connection.
    static let subscriptionCount = 100
    /// The channels they watch and the mutations write to, in turn.
    static let channelCount = 100

    /// The demo schema's `messages.send`, each into the next of ``channelCount`` channels, with
    /// ``subscriptionCount`` connections each subscribed to `messages.list` of one of them,
    /// sent from ``writerCount`` connections each awaiting its answer, on a fresh SQLite file
    /// with the server's default settings. Returns the rate and how many messages the watchers
    /// received while the mutations ran.
    static func mutationRate(mutations: Int) async throws -> (perSecond: Double, watcherMessages: Int) {
        let (path, cleanup) = temporaryFile("tinyvex")
        defer { cleanup() }
        return try await TinyvexServer.withServer(
            schema: TinyvexDemoSchema.schema(), database: .file(path), configuration: serverConfiguration, port: 0
        ) { server in
            try await drive(urls: [server.url], mutations: mutations, channelPrefix: "c")
        }
    }

    /// The settings every benchmark server runs with: a send queue deep enough for the flood,
    /// and no heartbeat during the measurement.
    static let serverConfiguration = TinyvexServerConfiguration(maxSendQueue: 4_096, heartbeatInterval: .seconds(3600))

    /// The mutation flood of ``mutationRate(mutations:)`` against the servers at `urls`: the
    /// watchers and the writers are spread over them in turn, and the channels are named
    /// `channelPrefix` followed by their number.
    static func drive(urls: [String], mutations: Int, channelPrefix: String) async throws -> (perSecond: Double, watcherMessages: Int) {
        let receivers = try await Receivers.subscribe(urls: urls, count: subscriptionCount) { index in
            #"{"jsonrpc":"2.0","id":1,"method":"tinyvex/subscribe","params":{"subId":"m","name":"messages.list","params":{"channel":"\#(channelPrefix)\#(index % channelCount)"}}}"#
        }
        var writers: [Driver] = []
        for index in 0..<writerCount { writers.append(try await Driver(url: urls[index % urls.count])) }
        let perWriter = mutations / writerCount
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, writer) in writers.enumerated() {
                group.addTask {
                    for step in 0..<perWriter {
                        try await writer.send(author: "w\(index)", channel: "\(channelPrefix)\((index + step * writerCount) % channelCount)")
                    }
                }
            }
            try await group.waitForAll()
        }
        let elapsed = ContinuousClock.now - start
        let watcherMessages = receivers.counter.total - subscriptionCount * 2
        for writer in writers { await writer.close() }
        await receivers.close()
        return (Double(perWriter * writerCount) / elapsed.seconds, watcherMessages)
    }

    /// Fan-out rounds: `connections` connections spread over `receiving` in turn, each subscribed
    /// to `messages.count` of `channel`; each round sends one message into the channel through
    /// `sending` and is timed until every connection has the new count.
    static func fanout(receiving: [String], sending: String, channel: String, connections: Int, rounds count: Int) async throws -> [Duration] {
        try await fanoutRounds(receiving: receiving, sending: sending, connections: connections, rounds: count, subscribe: { _ in
            #"{"jsonrpc":"2.0","id":1,"method":"tinyvex/subscribe","params":{"subId":"n","name":"messages.count","params":{"channel":"\#(channel)"}}}"#
        }) { try await $0.send(author: "fanout", channel: channel) }
    }

    /// Fan-out rounds: `connections` connections spread over `receiving` in turn, each subscribed
    /// with `subscribe` (by default to `counter.get`); each round runs `mutate` on a connection
    /// to `sending` and is timed until every connection has the new value.
    static func fanoutRounds(
        receiving: [String], sending: String, connections: Int, rounds: Int,
        subscribe: @Sendable (Int) -> String = Receivers.counterSubscription,
        mutate: @Sendable (Driver) async throws -> Void
    ) async throws -> [Duration] {
        let receivers = try await Receivers.subscribe(urls: receiving, count: connections, request: subscribe)
        let driver = try await Driver(url: sending)
        var latencies: [Duration] = []
        for _ in 0..<rounds {
            receivers.counter.arm(connections)
            let start = ContinuousClock.now
            try await mutate(driver)
            let end = await receivers.counter.finished()
            latencies.append(end - start)
        }
        await driver.close()
        await receivers.close()
        return latencies
    }

    /// Bare GRDB: the same document inserts, one transaction each, on a fresh SQLite file opened
    /// as the server opens its own (a pool in WAL mode, the server's default `synchronous`).
    static func bareInsertRate(inserts: Int) throws -> Double {
        let (path, cleanup) = temporaryFile("bare")
        defer { cleanup() }
        let database = try DatabasePool(path: path)
        try database.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA synchronous = \(TinyvexServerConfiguration().durability.synchronousPragma)")
            try db.execute(sql: "CREATE TABLE documents (id INTEGER PRIMARY KEY AUTOINCREMENT, tbl TEXT NOT NULL, body TEXT NOT NULL)")
        }
        let start = ContinuousClock.now
        for index in 0..<inserts {
            try database.write { db in
                try db.execute(
                    sql: "INSERT INTO documents(tbl, body) VALUES ('messages', ?)",
                    arguments: [#"{"author":"w0","channel":"general","text":"m\#(index)"}"#])
            }
        }
        return Double(inserts) / (ContinuousClock.now - start).seconds
    }

    /// A fresh path in the temporary folder, and what removes the database files there.
    static func temporaryFile(_ prefix: String) -> (String, @Sendable () -> Void) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString).sqlite").path
        return (path, {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        })
    }

    static func withTinyvex<T>(isolation: isolated (any Actor)? = #isolation, _ body: (String) async throws -> T) async throws -> T {
        try await TinyvexServer.withServer(schema: schema(), configuration: serverConfiguration, port: 0) { server in
            try await body(server.url)
        }
    }

    /// Connections subscribed to `counter.get`, counting what they receive.
    struct Receivers {
        let counter = FanoutCounter()
        var transports: [WebSocketTransport] = []
        var readers: [Task<Void, any Error>] = []

        /// The subscription to `counter.get`.
        static func counterSubscription(_: Int) -> String {
            #"{"jsonrpc":"2.0","id":1,"method":"tinyvex/subscribe","params":{"subId":"c","name":"counter.get","params":{}}}"#
        }

        static func subscribe(
            urls: [String], count: Int,
            request: (Int) -> String = counterSubscription
        ) async throws -> Receivers {
            var receivers = Receivers()
            let counter = receivers.counter
            for index in 0..<count {
                let transport = try await WebSocketClient.connect(to: urls[index % urls.count])
                receivers.transports.append(transport)
                receivers.readers.append(Task { for try await _ in transport.inboundMessages() { counter.received() } })
                counter.arm(2)  // the first value and the answer
                try await transport.send(.text(request(index)))
                _ = await counter.finished()
            }
            return receivers
        }

        func close() async {
            for transport in transports { await transport.close(code: .normal, reason: "") }
            for reader in readers { reader.cancel() }
        }
    }

    /// The connection that sends mutations and awaits each answer.
    final class Driver: Sendable {
        let transport: WebSocketTransport
        let answers = FanoutCounter()
        let reader: Task<Void, any Error>
        let ids = Mutex<Int>(0)

        init(url: String) async throws {
            transport = try await WebSocketClient.connect(to: url)
            let transport = self.transport
            let answers = self.answers
            reader = Task { for try await _ in transport.inboundMessages() { answers.received() } }
        }

        func bump() async throws {
            let id = ids.withLock { $0 += 1; return $0 }
            answers.arm(1)
            try await transport.send(.text(#"{"jsonrpc":"2.0","id":\#(id),"method":"tinyvex/mutation","params":{"requestId":"b\#(id)","name":"counter.bump"}}"#))
            _ = await answers.finished()
        }

        /// Sends `messages.send` into `channel` and awaits its answer.
        func send(author: String, channel: String) async throws {
            let id = ids.withLock { $0 += 1; return $0 }
            answers.arm(1)
            try await transport.send(.text(
                #"{"jsonrpc":"2.0","id":\#(id),"method":"tinyvex/mutation","params":{"requestId":"\#(author)-\#(id)","name":"messages.send","args":{"channel":"\#(channel)","author":"\#(author)","text":"m\#(id)"}}}"#))
            _ = await answers.finished()
        }

        func close() async {
            await transport.close(code: .normal, reason: "")
            reader.cancel()
        }
    }

    /// A bare SQLite write (GRDB, in memory) then the same-sized message written to every
    /// connection of a plain WebSocket server.
    static func bare(connections: Int, rounds: Int) async throws -> [Duration] {
        let database = try DatabaseQueue()
        try await database.write { db in
            try db.execute(sql: "CREATE TABLE counters (id INTEGER PRIMARY KEY, n INTEGER NOT NULL); INSERT INTO counters VALUES (1, 0)")
        }
        let (accepted, acceptedSignal) = AsyncStream<WebSocketTransport>.makeStream()
        return try await withTransportServer(
            configuration: TransportServerConfiguration(address: .host("127.0.0.1", port: 0)),
            onConnection: { transport, _ in
                acceptedSignal.yield(transport)
                do { for try await _ in transport.inboundMessages() {} } catch {}
            }
        ) { server in
            let counter = FanoutCounter()
            var clients: [WebSocketTransport] = []
            var readers: [Task<Void, any Error>] = []
            var serverSide: [WebSocketTransport] = []
            var iterator = accepted.makeAsyncIterator()
            for _ in 0..<connections {
                let transport = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(server.port ?? 0)/")
                clients.append(transport)
                readers.append(Task { for try await _ in transport.inboundMessages() { counter.received() } })
                if let peer = await iterator.next() { serverSide.append(peer) }
            }
            var latencies: [Duration] = []
            for round in 0..<rounds {
                counter.arm(connections)
                let start = ContinuousClock.now
                try await database.write { db in
                    try db.execute(sql: "UPDATE counters SET n = n + 1 WHERE id = 1")
                }
                let message = TransportMessage.text(#"{"jsonrpc":"2.0","method":"tinyvex/data","params":{"subId":"c","seq":\#(round + 2),"value":\#(round + 2)}}"#)
                for peer in serverSide { try peer.enqueue(message) }
                let end = await counter.finished()
                latencies.append(end - start)
            }
            for transport in clients { await transport.close(code: .normal, reason: "") }
            for reader in readers { reader.cancel() }
            acceptedSignal.finish()
            return latencies
        }
    }

    static func percentiles(_ values: [Duration]) -> (p50: Double, p99: Double) {
        let sorted = values.map(\.seconds).sorted()
        guard !sorted.isEmpty else { return (0, 0) }
        func at(_ fraction: Double) -> Double {
            sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * fraction).rounded()))]
        }
        return (at(0.5), at(0.99))
    }
}

extension Duration {
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
