import BenchmarkSupport
import CapnWeb
import Foundation
import RivetKit
import RivetKitServer
import RpcTransportNIO
import Synchronization

/// `make bench-actors`: the actor server and client on loopback, in one process: sequential
/// actions (p50, p99, actions per second), actions per second with 64 in flight, and one actor
/// broadcasting to 1,000 subscribed connections (events per second, p99 delivery). The Session
/// layer's calls per second with 64 in flight are measured in the same run, the same way, and
/// the last line is `ratio actors-vs-session-calls <x.xx>` (actions over calls, goal >= 0.8).
///
/// Sequential actions are timed twice: from a task that prefers the connection's executor (as
/// the Session benchmark times its sequential calls), and from the cooperative pool, where each
/// request and each answer is handed between threads.
///
/// Options: `--quick` (fewer operations), `--runs N` (default 3), `--profile-actions N` (only
/// N actor actions with 64 in flight, for a profiler; prints no ratio), `--sequential-only N`
/// (only N sequential actions each way; prints no ratio).
@main
enum ActorsBenchmarks {
    static func main() async throws {
        let arguments = CommandLine.arguments.dropFirst()
        let quick = arguments.contains("--quick")
        var runs = 3
        if let index = arguments.firstIndex(of: "--runs"), index + 1 < arguments.endIndex, let value = Int(arguments[index + 1]) {
            runs = max(value, 1)
        }
        let sequential = quick ? 500 : 5_000
        let concurrent = quick ? 5_000 : 50_000
        if let index = arguments.firstIndex(of: "--profile-actions"), index + 1 < arguments.endIndex,
            let count = Int(arguments[index + 1])
        {
            let actors = try await ActorSide.measure(sequential: 0, concurrent: count, subscribers: 0, broadcasts: 0)
            print("actors 64 in flight: \(fixed(actors.concurrentPerSecond)) actions/s")
            return
        }
        if let index = arguments.firstIndex(of: "--sequential-only"), index + 1 < arguments.endIndex,
            let count = Int(arguments[index + 1])
        {
            for run in 1 ... runs {
                print("run \(run) of \(runs)")
                let actors = try await ActorSide.measure(sequential: count, concurrent: 0, subscribers: 0, broadcasts: 0)
                printSequential(actors)
            }
            return
        }
        let subscribers = 1_000
        let broadcasts = quick ? 5 : 20

        var summary = RatioSummary()
        summary.declare("actors-vs-session-calls", label: "actions", goal: 0.8)
        for run in 1 ... runs {
            print("run \(run) of \(runs)")
            let session = try await SessionSide.callsPerSecond(total: concurrent, window: 64)
            let actors = try await ActorSide.measure(
                sequential: sequential, concurrent: concurrent, subscribers: subscribers, broadcasts: broadcasts)
            printSequential(actors)
            print("  actors 64 in flight: \(fixed(actors.concurrentPerSecond)) actions/s")
            print("  session 64 in flight: \(fixed(session)) calls/s")
            print("  broadcast to \(subscribers) connections: \(fixed(actors.eventsPerSecond)) events/s, p99 delivery \(micro(actors.deliveryP99))")
            summary.record(actors.concurrentPerSecond / session, for: "actors-vs-session-calls")
        }
        summary.summaryLines.forEach { print($0) }
        summary.ratioLines.forEach { print($0) }
    }

    static func fixed(_ value: Double) -> String { ReportFormat.fixed(value) }

    static func printSequential(_ actors: ActorSide.Result) {
        print("  actors sequential: \(describe(actors.sequential))")
        print("  actors sequential from the cooperative pool: \(describe(actors.pool))")
    }

    static func describe(_ sequential: ActorSide.Sequential) -> String {
        "\(fixed(sequential.perSecond)) actions/s, p50 \(micro(sequential.p50)), p99 \(micro(sequential.p99))"
    }

    static func micro(_ duration: Duration) -> String {
        ReportFormat.fixed(Double(duration.components.seconds) * 1e6 + Double(duration.components.attoseconds) / 1e12) + " us"
    }

    static func percentile(_ samples: [Duration], _ fraction: Double) -> Duration {
        let sorted = samples.sorted()
        guard !sorted.isEmpty else { return .zero }
        return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * fraction))]
    }
}

/// The actor side of a run.
enum ActorSide {
    /// Sequential actions timed one way.
    struct Sequential {
        var perSecond: Double
        var p50: Duration
        var p99: Duration
    }

    struct Result {
        /// Sequential actions awaited from a task that prefers the connection's executor.
        var sequential: Sequential
        /// The same actions awaited from the cooperative pool.
        var pool: Sequential
        var concurrentPerSecond: Double
        var eventsPerSecond: Double
        var deliveryP99: Duration
    }

    static func measure(sequential: Int, concurrent: Int, subscribers: Int, broadcasts: Int) async throws -> Result {
        var configuration = ActorServerConfiguration(port: 0)
        configuration.maxActionsInFlightPerConnection = 128
        return try await withActorServer(
            registry: DemoActors.registry, store: try SQLiteActorStore.inMemory(), configuration: configuration
        ) { (server: ActorServer) async throws -> Result in
            let client = RivetKitClient(ClientConfig(endpoint: server.endpoint, token: nil, namespace: nil, disableMetadataLookup: true))
            let connection = client.getOrCreate("counter", key: ["bench"]).connect()
            connection.start()
            _ = try await connection.action("getCount", args: [])

            let clock = ContinuousClock()
            let sequentialOnLoop = try await withTaskExecutorPreference(connection.executor) {
                try await timeSequential(sequential, on: connection)
            }
            let pool = try await timeSequential(sequential, on: connection)

            let concurrentStart = clock.now
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0 ..< 64 {
                    let count = concurrent / 64 + (worker < concurrent % 64 ? 1 : 0)
                    group.addTask {
                        for _ in 0 ..< count { _ = try await connection.action("getCount", args: []) }
                    }
                }
                try await group.waitForAll()
            }
            let concurrentElapsed = clock.now - concurrentStart

            let (eventsPerSecond, deliveryP99) = subscribers == 0 ? (0, .zero) : try await broadcast(
                client: client, subscribers: subscribers, broadcasts: broadcasts, sender: connection)
            await connection.dispose()
            await client.close()
            return Result(
                sequential: sequentialOnLoop,
                pool: pool,
                concurrentPerSecond: Double(concurrent) / concurrentElapsed.inSeconds,
                eventsPerSecond: eventsPerSecond,
                deliveryP99: deliveryP99)
        }
    }

    /// Times `count` `getCount` actions awaited one after the other.
    static func timeSequential(_ count: Int, on connection: ActorConnection) async throws -> Sequential {
        let clock = ContinuousClock()
        var samples: [Duration] = []
        samples.reserveCapacity(count)
        let start = clock.now
        for _ in 0 ..< count {
            let before = clock.now
            _ = try await connection.action("getCount", args: [])
            samples.append(clock.now - before)
        }
        let elapsed = clock.now - start
        return Sequential(
            perSecond: count == 0 ? 0 : Double(count) / elapsed.inSeconds,
            p50: ActorsBenchmarks.percentile(samples, 0.5),
            p99: ActorsBenchmarks.percentile(samples, 0.99))
    }

    /// `subscribers` connections subscribe to `newCount`; each of `broadcasts` increments is
    /// timed from its sending to the arrival of its event at every subscriber.
    static func broadcast(client: RivetKitClient, subscribers: Int, broadcasts: Int, sender: ActorConnection) async throws
        -> (Double, Duration)
    {
        let handle = client.getOrCreate("counter", key: ["bench"])
        var connections: [ActorConnection] = []
        var streams: [AsyncStream<[JSONValue]>] = []
        for _ in 0 ..< subscribers {
            let connection = handle.connect()
            streams.append(connection.events("newCount"))
            connection.start()
            connections.append(connection)
        }
        for connection in connections { _ = try await connection.action("getCount", args: []) }
        let clock = ContinuousClock()
        var delivery: [Duration] = []
        let start = clock.now
        try await withThrowingTaskGroup(of: [Duration].self) { group in
            let sent = SentTimes(count: broadcasts)
            for stream in streams {
                group.addTask {
                    var iterator = stream.makeAsyncIterator()
                    var latencies: [Duration] = []
                    for index in 0 ..< broadcasts {
                        guard await iterator.next() != nil else { break }
                        latencies.append(clock.now - sent.time(index))
                    }
                    return latencies
                }
            }
            for index in 0 ..< broadcasts {
                sent.set(index, clock.now)
                _ = try await sender.action("increment", args: [1])
            }
            for try await latencies in group { delivery.append(contentsOf: latencies) }
        }
        let elapsed = clock.now - start
        for connection in connections { await connection.dispose() }
        return (Double(delivery.count) / elapsed.inSeconds, ActorsBenchmarks.percentile(delivery, 0.99))
    }
}

/// When each broadcast's increment was sent.
final class SentTimes: Sendable {
    private let times: Mutex<[ContinuousClock.Instant?]>

    init(count: Int) {
        times = Mutex(Array(repeating: nil, count: count))
    }

    func set(_ index: Int, _ instant: ContinuousClock.Instant) {
        times.withLock { $0[index] = instant }
    }

    /// The sending time of broadcast `index`; events only arrive after it was set.
    func time(_ index: Int) -> ContinuousClock.Instant {
        times.withLock { $0[index] } ?? ContinuousClock.now
    }
}

/// The Session side of a run: a Cap'n Web server and client session on loopback, `square`
/// calls with 64 in flight, as the actor actions are made.
enum SessionSide {
    final class Square: RpcTarget {
        func callImmediately(_ method: String, with arguments: RpcArguments) throws -> RpcPayload? {
            method == "square" ? .integer(Int64(try arguments.decode(0, as: Int.self) * 2)) : nil
        }
    }

    static func callsPerSecond(total: Int, window: Int) async throws -> Double {
        var configuration = TransportServerConfiguration(address: .host("127.0.0.1", port: 0))
        configuration.shutdownGracePeriod = .seconds(1)
        return try await withTransportServer(
            configuration: configuration,
            onConnection: { transport, _ in
                let session = RpcSession<Any>.start(transport: transport, main: Square())
                _ = await transport.waitUntilClosed()
                await session.close()
            }
        ) { server in
            let transport = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(server.port ?? 0)/")
            let session = RpcSession<Any>.start(transport: transport)
            let _: Int = try await session.api.square(1)
            let clock = ContinuousClock()
            let start = clock.now
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0 ..< window {
                    let count = total / window + (worker < total % window ? 1 : 0)
                    group.addTask {
                        for _ in 0 ..< count {
                            let _: Int = try await session.api.square(2)
                        }
                    }
                }
                try await group.waitForAll()
            }
            let elapsed = clock.now - start
            await session.close()
            return Double(total) / elapsed.inSeconds
        }
    }
}
