import BenchmarkSupport
import CapnWeb
import Foundation
import RivetKit
import RivetKitServer
import RpcTransportNIO
import Synchronization

/// `make bench-actors`: the actor server and client on loopback, in one process: sequential
/// actions (p50, p99, actions per second), actions per second with 64 in flight, and one actor
/// broadcasting to 1,000 subscribed connections (events per second, p99 delivery), actions per
/// second on one actor with 100 subscribed listeners (64 increments in flight, each broadcast to
/// all of them; p99 delivery), and the wake latency of a sleeping actor (a sleeping actor to its
/// first HTTP action answered, p50 and p99 over the wakes). The Session
/// layer's calls per second with 64 in flight are measured in the same run, the same way: both
/// servers stay up while slices of actor actions and of session calls take turns (ABBA order),
/// and each side's figure is the median of its slices, so a drift of the machine between two
/// long measurements does not land on one side only. The last line is
/// `ratio actors-vs-session-calls <x.xx>` (actions over calls, goal >= 0.8).
///
/// Sequential actions are timed twice: from a task that prefers the connection's executor (as
/// the Session benchmark times its sequential calls), and from the cooperative pool, where each
/// request and each answer is handed between threads.
///
/// Wakes are measured on a server of their own, with an actor type whose `sleepTimeout` is 20 ms
/// and whose `onSleep` signals the benchmark: each wake is timed once that signal came and the
/// server counts no awake actor, so no fixed sleep synchronises it.
///
/// Options: `--quick` (fewer operations), `--runs N` (default 3), `--profile-actions N` (only
/// N actor actions with 64 in flight, for a profiler; prints no ratio), `--profile-session N`
/// (the same for N Session calls), `--sequential-only N`
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
            let actors = try await ActorSide.measure(
                sequential: 0, concurrent: count, subscribers: 0, broadcasts: 0, listeners: 0, listenerActions: 0)
            print("actors 64 in flight: \(fixed(actors.concurrentPerSecond)) actions/s")
            return
        }
        if let index = arguments.firstIndex(of: "--profile-session"), index + 1 < arguments.endIndex,
            let count = Int(arguments[index + 1])
        {
            let perSecond = try await SessionSide.withCalls { try await $0.perSecond(count) }
            print("session 64 in flight: \(fixed(perSecond)) calls/s")
            return
        }
        if let index = arguments.firstIndex(of: "--sequential-only"), index + 1 < arguments.endIndex,
            let count = Int(arguments[index + 1])
        {
            for run in 1 ... runs {
                print("run \(run) of \(runs)")
                let actors = try await ActorSide.measure(
                    sequential: count, concurrent: 0, subscribers: 0, broadcasts: 0, listeners: 0, listenerActions: 0)
                printSequential(actors)
            }
            return
        }
        let subscribers = 1_000
        let broadcasts = quick ? 5 : 20
        let listeners = 100
        let listenerActions = quick ? 500 : 5_000
        let wakes = quick ? 20 : 100

        var summary = RatioSummary()
        let clusterURL = ClusterSide.url
        if clusterURL != nil {
            summary.declare("actors-forwarded-vs-direct", label: "forwarded", goal: 0.5)
        }
        summary.declare("actors-vs-session-calls", label: "actions", goal: 0.8)
        for run in 1 ... runs {
            print("run \(run) of \(runs)")
            let actors = try await SessionSide.withCalls { session in
                try await ActorSide.measure(
                    sequential: sequential, concurrent: concurrent, subscribers: subscribers, broadcasts: broadcasts,
                    listeners: listeners, listenerActions: listenerActions, pairedWith: session)
            }
            let wake = try await WakeSide.measure(wakes: wakes)
            printSequential(actors)
            print("  actors 64 in flight: \(fixed(actors.concurrentPerSecond)) actions/s (median of \(ActorSide.pairedSlices) slices)")
            print("  session 64 in flight: \(fixed(actors.sessionPerSecond)) calls/s (median of the slices taking turns with them)")
            print("  broadcast to \(subscribers) connections: \(fixed(actors.eventsPerSecond)) events/s, p99 delivery \(micro(actors.deliveryP99))")
            print("  actors \(listeners) listeners: \(fixed(actors.listeners.actionsPerSecond)) actions/s, p99 delivery \(micro(actors.listeners.deliveryP99))\(actors.listeners.dropped == 0 ? "" : ", \(actors.listeners.dropped) events dropped")")
            print("  actors wake: p50 \(micro(wake.p50)), p99 \(micro(wake.p99)) (\(wakes) wakes; an awake actor's HTTP action: p50 \(micro(wake.awakeP50)))")
            if let clusterURL {
                let cluster = try await ClusterSide.measure(url: clusterURL, actions: concurrent, run: run)
                print("  cluster on PostgreSQL, 64 in flight: \(fixed(cluster.directPerSecond)) actions/s to the owner, \(fixed(cluster.forwardedPerSecond)) actions/s through another node")
                summary.record(cluster.forwardedPerSecond / cluster.directPerSecond, for: "actors-forwarded-vs-direct")
            }
            summary.record(actors.concurrentPerSecond / actors.sessionPerSecond, for: "actors-vs-session-calls")
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
        /// Actions per second with 64 in flight: the median of the paired slices.
        var concurrentPerSecond: Double
        /// Session calls per second with 64 in flight: the median of the slices taking turns
        /// with the actions' slices.
        var sessionPerSecond: Double
        var eventsPerSecond: Double
        var deliveryP99: Duration
        var listeners: Listeners
    }

    /// Increments on one actor with listeners subscribed to its `newCount`.
    struct Listeners {
        /// Increments per second, until every listener had the last one's event.
        var actionsPerSecond: Double
        /// From an increment's sending to its event's arrival at a listener.
        var deliveryP99: Duration
        /// Events a listener's buffer dropped (none expected: the buffer holds them all).
        var dropped: Int
    }

    /// How many slices of actions (and as many of session calls) a run times in turns.
    static let pairedSlices = 10

    static func measure(
        sequential: Int, concurrent: Int, subscribers: Int, broadcasts: Int, listeners: Int, listenerActions: Int,
        pairedWith session: SessionSide.Calls? = nil
    ) async throws -> Result {
        var configuration = ActorServerConfiguration(port: 0)
        configuration.maxActionsInFlightPerConnection = 128
        return try await withActorServer(
            registry: DemoActors.registry, store: try SQLiteActorStore.inMemory(), configuration: configuration
        ) { (server: ActorServer) async throws -> Result in
            let client = RivetKitClient(ClientConfig(endpoint: server.endpoint, token: nil, namespace: nil, disableMetadataLookup: true))
            let connection = client.getOrCreate("counter", key: ["bench"]).connect()
            connection.start()
            _ = try await connection.action("getCount", args: [])

            let sequentialOnLoop = try await withTaskExecutorPreference(connection.executor) {
                try await timeSequential(sequential, on: connection)
            }
            let pool = try await timeSequential(sequential, on: connection)

            var actionSlices: [Double] = []
            var sessionSlices: [Double] = []
            if let session, concurrent > 0 {
                let slice = max(concurrent / pairedSlices, 64)
                for index in 0 ..< pairedSlices {
                    // ABBA: the side that goes first alternates, so neither always runs warm.
                    if index % 2 == 0 {
                        actionSlices.append(try await actionsPerSecond(slice, on: connection))
                        sessionSlices.append(try await session.perSecond(slice))
                    } else {
                        sessionSlices.append(try await session.perSecond(slice))
                        actionSlices.append(try await actionsPerSecond(slice, on: connection))
                    }
                }
            } else if concurrent > 0 {
                actionSlices.append(try await actionsPerSecond(concurrent, on: connection))
            }
            let concurrentPerSecond = actionSlices.isEmpty ? 0 : Statistics.median(actionSlices)
            let sessionPerSecond = sessionSlices.isEmpty ? 0 : Statistics.median(sessionSlices)

            let (eventsPerSecond, deliveryP99) = subscribers == 0 ? (0, .zero) : try await broadcast(
                client: client, subscribers: subscribers, broadcasts: broadcasts, sender: connection)
            let listened = listeners == 0 || listenerActions == 0
                ? Listeners(actionsPerSecond: 0, deliveryP99: .zero, dropped: 0)
                : try await listen(endpoint: server.endpoint, listeners: listeners, actions: listenerActions)
            await connection.dispose()
            await client.close()
            return Result(
                sequential: sequentialOnLoop,
                pool: pool,
                concurrentPerSecond: concurrentPerSecond,
                sessionPerSecond: sessionPerSecond,
                eventsPerSecond: eventsPerSecond,
                deliveryP99: deliveryP99,
                listeners: listened)
        }
    }

    /// `getCount` actions per second over `total` of them, 64 in flight on `connection`.
    static func actionsPerSecond(_ total: Int, on connection: ActorConnection) async throws -> Double {
        let elapsed = try await InFlight.run(total: total, window: 64) { _ = try await connection.action("getCount", args: []) }
        return Double(total) / elapsed.inSeconds
    }

    /// `count` new connections to `handle`'s actor, each subscribed to `newCount` (its stream
    /// beside it) and answered once, so the subscriptions are in place.
    static func subscribed(_ handle: ActorHandle, count: Int) async throws
        -> (connections: [ActorConnection], streams: [AsyncStream<[JSONValue]>])
    {
        var connections: [ActorConnection] = []
        var streams: [AsyncStream<[JSONValue]>] = []
        for _ in 0 ..< count {
            let connection = handle.connect()
            streams.append(connection.events("newCount"))
            connection.start()
            connections.append(connection)
        }
        for connection in connections { _ = try await connection.action("getCount", args: []) }
        return (connections, streams)
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
        let (connections, streams) = try await subscribed(client.getOrCreate("counter", key: ["bench"]), count: subscribers)
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

extension ActorSide {
    /// `listeners` connections subscribe to `newCount` of a fresh counter; one more connection
    /// sends `actions` increments by 1, 64 in flight. Each event carries the new count, so its
    /// delivery is timed from the sending of the increment that answered that count.
    static func listen(endpoint: String, listeners: Int, actions: Int) async throws -> Listeners {
        // Every event fits the listeners' buffers, so none is dropped while they lag.
        let client = RivetKitClient(
            ClientConfig(endpoint: endpoint, disableMetadataLookup: true, maxBufferedEvents: actions + 16))
        let handle = client.getOrCreate("counter", key: ["listeners"])
        let sender = handle.connect()
        sender.start()
        let base = try await sender.action("getCount", args: []).intValue ?? 0
        let (connections, streams) = try await subscribed(handle, count: listeners)

        let clock = ContinuousClock()
        let last = base + actions
        var arrivals: [(count: Int, at: ContinuousClock.Instant)] = []
        var sent: [Int: ContinuousClock.Instant] = [:]
        sent.reserveCapacity(actions)
        let start = clock.now
        try await withThrowingTaskGroup(of: ListenerOutcome.self) { group in
            for stream in streams {
                group.addTask {
                    var received: [(count: Int, at: ContinuousClock.Instant)] = []
                    received.reserveCapacity(actions)
                    // The last increment's event is the newest, so no buffer drops it.
                    for await event in stream {
                        guard let count = event.first?.intValue else { continue }
                        received.append((count, clock.now))
                        if count >= last { break }
                    }
                    return .listener(received)
                }
            }
            for worker in 0 ..< 64 {
                let count = actions / 64 + (worker < actions % 64 ? 1 : 0)
                group.addTask {
                    var times: [(count: Int, at: ContinuousClock.Instant)] = []
                    times.reserveCapacity(count)
                    for _ in 0 ..< count {
                        let before = clock.now
                        let answer = try await sender.action("increment", args: [1])
                        if let value = answer.intValue { times.append((value, before)) }
                    }
                    return .sender(times)
                }
            }
            for try await outcome in group {
                switch outcome {
                case .listener(let received): arrivals.append(contentsOf: received)
                case .sender(let times): for time in times { sent[time.count] = time.at }
                }
            }
        }
        let elapsed = clock.now - start
        for connection in connections { await connection.dispose() }
        await sender.dispose()
        await client.close()
        let delivery = arrivals.compactMap { arrival in sent[arrival.count].map { arrival.at - $0 } }
        return Listeners(
            actionsPerSecond: Double(actions) / elapsed.inSeconds,
            deliveryP99: ActorsBenchmarks.percentile(delivery, 0.99),
            dropped: listeners * actions - arrivals.count)
    }

    /// What a task of `listen` hands back.
    enum ListenerOutcome: Sendable {
        /// Each event's count and arrival at one listener.
        case listener([(count: Int, at: ContinuousClock.Instant)])
        /// Each increment's answered count and sending time, for one sending worker.
        case sender([(count: Int, at: ContinuousClock.Instant)])
    }
}

/// Wake latency: an actor type that sleeps 20 ms after its last request, on a server of its own
/// (its idle check then runs every 10 ms, which the other figures should not share).
enum WakeSide {
    struct Result {
        var p50: Duration
        var p99: Duration
        /// The same HTTP action on the actor while it is awake, for comparison.
        var awakeP50: Duration
    }

    static func measure(wakes: Int) async throws -> Result {
        let (slept, sleeping) = AsyncStream<Void>.makeStream(of: Void.self, bufferingPolicy: .unbounded)
        let sleeper = ActorDefinition("sleeper", initialState: 0)
            .options(ActorDefinitionOptions(sleepTimeout: .milliseconds(20)))
            .onSleep { (_: inout ActorLifecycleContext<Int>) in sleeping.yield() }
            .action("ping") { context in context.state }
        var registry = ActorRegistry()
        registry.register(sleeper)
        defer { sleeping.finish() }
        return try await withActorServer(
            registry: registry, store: try SQLiteActorStore.inMemory(), configuration: ActorServerConfiguration(port: 0)
        ) { (server: ActorServer) async throws -> Result in
            let client = RivetKitClient(ClientConfig(endpoint: server.endpoint, disableMetadataLookup: true))
            let handle = client.getOrCreate("sleeper", key: ["wake"])
            let clock = ContinuousClock()
            // Created, then awake: the HTTP action's own cost, back to back within the timeout.
            var awake: [Duration] = []
            for _ in 0 ..< 20 {
                let before = clock.now
                _ = try await handle.action("ping", args: [])
                awake.append(clock.now - before)
            }
            var signals = slept.makeAsyncIterator()
            var samples: [Duration] = []
            samples.reserveCapacity(wakes)
            for _ in 0 ..< wakes {
                // `onSleep` ran; then the instance leaves memory.
                guard await signals.next() != nil else { break }
                while await server.awakeActorCount() > 0 { await Task.yield() }
                let before = clock.now
                _ = try await handle.action("ping", args: [])
                samples.append(clock.now - before)
            }
            await client.close()
            return Result(
                p50: ActorsBenchmarks.percentile(samples, 0.5),
                p99: ActorsBenchmarks.percentile(samples, 0.99),
                awakeP50: ActorsBenchmarks.percentile(awake, 0.5))
        }
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

    /// A connected session whose `square` calls can be timed, 64 in flight.
    struct Calls: Sendable {
        let session: RpcSession<Any>

        /// `square` calls per second over `total` of them, 64 in flight.
        func perSecond(_ total: Int) async throws -> Double {
            let elapsed = try await InFlight.run(total: total, window: 64) { [session] in
                let _: Int = try await session.api.square(2)
            }
            return Double(total) / elapsed.inSeconds
        }
    }

    /// Runs `body` with a Cap'n Web server and a client session connected to it on loopback.
    static func withCalls<Value>(
        isolation: isolated (any Actor)? = #isolation, _ body: (Calls) async throws -> Value
    ) async throws -> Value {
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
            do {
                let value = try await body(Calls(session: session))
                await session.close()
                return value
            } catch {
                await session.close()
                throw error
            }
        }
    }
}
