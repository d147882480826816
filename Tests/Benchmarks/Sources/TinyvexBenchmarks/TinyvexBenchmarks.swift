import Foundation
import GRDB
import RpcTransport
import RpcTransportNIO
import RpcWire
import Synchronization
import TinyvexServer

/// `make bench-tinyvex`. Prints mutations per second with 100 live subscriptions; the time from
/// sending a mutation until all 1,000 subscribed connections have the new value (p50, p99);
/// the same for a bare SQLite write followed by a bare WebSocket broadcast to 1,000 connections;
/// and `ratio tinyvex-fanout-vs-bare X.XX` (Tinyvex's p50 over the bare p50; the goal is 2.0 or
/// less). `--quick` runs fewer rounds.
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
        let mutations = quick ? 500 : 3_000
        print("tinyvex benchmark: \(mutations) mutations with 100 subscriptions; \(rounds) fan-out rounds to \(connections) connections")

        let perSecond = try await withTinyvex { url in
            let receivers = try await Receivers.subscribe(url: url, count: 100)
            let driver = try await Driver(url: url)
            let start = ContinuousClock.now
            for _ in 0..<mutations { try await driver.bump() }
            let elapsed = ContinuousClock.now - start
            await driver.close()
            await receivers.close()
            return Double(mutations) / elapsed.seconds
        }
        print(String(format: "mutations/s with 100 live subscriptions: %.0f", perSecond))

        let tinyvexLatencies = try await withTinyvex { url in
            let receivers = try await Receivers.subscribe(url: url, count: connections)
            let driver = try await Driver(url: url)
            var latencies: [Duration] = []
            for _ in 0..<rounds {
                receivers.counter.arm(connections)
                let start = ContinuousClock.now
                try await driver.bump()
                let end = await receivers.counter.finished()
                latencies.append(end - start)
            }
            await driver.close()
            await receivers.close()
            return latencies
        }
        let bareLatencies = try await bare(connections: connections, rounds: rounds)
        let tinyvex = percentiles(tinyvexLatencies)
        let floor = percentiles(bareLatencies)
        print(String(format: "tinyvex mutation to %d connections: p50 %.3f ms, p99 %.3f ms", connections, tinyvex.p50 * 1000, tinyvex.p99 * 1000))
        print(String(format: "bare SQLite write + WebSocket broadcast to %d connections: p50 %.3f ms, p99 %.3f ms", connections, floor.p50 * 1000, floor.p99 * 1000))
        print(String(format: "ratio tinyvex-fanout-vs-bare %.2f", tinyvex.p50 / floor.p50))
    }

    static func withTinyvex<T>(isolation: isolated (any Actor)? = #isolation, _ body: (String) async throws -> T) async throws -> T {
        let configuration = TinyvexServerConfiguration(maxSendQueue: 4_096, heartbeatInterval: .seconds(3600))
        return try await TinyvexServer.withServer(schema: schema(), configuration: configuration, port: 0) { server in
            try await body(server.url)
        }
    }

    /// Connections subscribed to `counter.get`, counting what they receive.
    struct Receivers {
        let counter = FanoutCounter()
        var transports: [WebSocketTransport] = []
        var readers: [Task<Void, any Error>] = []

        static func subscribe(url: String, count: Int) async throws -> Receivers {
            var receivers = Receivers()
            let counter = receivers.counter
            for _ in 0..<count {
                let transport = try await WebSocketClient.connect(to: url)
                receivers.transports.append(transport)
                receivers.readers.append(Task { for try await _ in transport.inboundMessages() { counter.received() } })
                counter.arm(2)  // the first value and the answer
                try await transport.send(.text(#"{"jsonrpc":"2.0","id":1,"method":"tinyvex/subscribe","params":{"subId":"c","name":"counter.get","params":{}}}"#))
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
