import BenchmarkSupport
import CapnWeb
import LoopbackSupport
import NIOCore
import NIOPosix
import RpcTransportNIO

/// Drives a session server through a client session over our `WebSocketClient`.
final class SessionClientDriver: Sendable {
    private let session: RpcSession<Any>
    private let argument: String
    private let group: MultiThreadedEventLoopGroup
    /// The connection's event loop as a task executor: the calls run there, as an application
    /// that keeps a connection's work on its event loop does, with no hop to the cooperative
    /// pool per call.
    private let executor: (any TaskExecutor)?

    private init(session: RpcSession<Any>, argument: String, group: MultiThreadedEventLoopGroup) {
        self.session = session
        self.argument = argument
        self.group = group
        self.executor = session.executor
    }

    /// Connects and starts the client session; `argument` is what every `square` call sends.
    /// permessage-deflate is offered when `deflate` is set.
    static func connect(
        port: Int, argument: String, deflate: PerMessageDeflateConfiguration? = nil
    ) async throws -> SessionClientDriver {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        var configuration = WebSocketClientConfiguration()
        configuration.deflate = deflate
        let transport = try await WebSocketClient.connect(
            to: "ws://127.0.0.1:\(port)/", configuration: configuration, eventLoopGroup: group)
        guard transport.isCompressionEnabled == (deflate != nil) else {
            throw BenchmarkFailure("permessage-deflate was \(deflate == nil ? "" : "not ")negotiated as expected")
        }
        let session = RpcSession<Any>.start(transport: transport)
        return SessionClientDriver(session: session, argument: argument, group: group)
    }

    /// One `square` call, awaited, its result checked.
    func call() async throws {
        let result: String = try await session.api.square(argument)
        try check(result)
    }

    /// One `squareAsync` call (answered from the target's `async` method), awaited, its result
    /// checked.
    func callAsyncMethod() async throws {
        let result: String = try await session.api.squareAsync(argument)
        try check(result)
    }

    private func check(_ result: String) throws {
        guard result.utf8.count == argument.utf8.count else {
            throw BenchmarkFailure("square returned \(result.utf8.count) bytes, not \(argument.utf8.count)")
        }
    }

    /// Makes `count` calls (`square`, or `squareAsync` when `asyncMethod` is set) one after the
    /// other; returns the time of each in nanoseconds and the time of all of them.
    func sequential(count: Int, asyncMethod: Bool = false) async throws -> (samples: [Int64], elapsed: Duration) {
        try await withTaskExecutorPreference(executor) {
            let clock = ContinuousClock()
            var samples: [Int64] = []
            samples.reserveCapacity(count)
            let start = clock.now
            for _ in 0 ..< count {
                let before = clock.now
                if asyncMethod {
                    try await callAsyncMethod()
                } else {
                    try await call()
                }
                samples.append(EchoProgress.nanoseconds(clock.now - before))
            }
            return (samples, clock.now - start)
        }
    }

    /// Makes `total` calls from `window` tasks, each calling in a loop, so that `window` calls
    /// are outstanding at any time; returns the time from the first call to the last result.
    func concurrent(total: Int, window: Int) async throws -> Duration {
        try await InFlight.run(total: total, window: window, executorPreference: executor) { try await self.call() }
    }

    /// `makeCounter(0)` and three `increment(1)` calls on its result, all sent without waiting
    /// (pipelined on the counter promise), the three results awaited at the end.
    func pipelinedChain() async throws {
        let counter = session.api.makeCounter(0)
        let first = counter.increment(1)
        let second = counter.increment(1)
        let third = counter.increment(1)
        async let a = first.resolved(as: Int.self)
        async let b = second.resolved(as: Int.self)
        async let c = third.resolved(as: Int.self)
        let values = try await [a, b, c]
        guard values.sorted() == [1, 2, 3] else {
            throw BenchmarkFailure("the pipelined chain returned \(values)")
        }
    }

    /// The same four calls, each awaited before the next is made.
    func sequentialChain() async throws {
        guard case .stub(let stub) = try await session.api.makeCounter(0).payload() else {
            throw BenchmarkFailure("makeCounter did not return a stub")
        }
        let counter = Ref<Any>(stub)
        let a: Int = try await counter.increment(1)
        let b: Int = try await counter.increment(1)
        let c: Int = try await counter.increment(1)
        guard [a, b, c] == [1, 2, 3] else {
            throw BenchmarkFailure("the sequential chain returned \([a, b, c])")
        }
    }

    /// Runs `chain` `count` times; returns the time of each in nanoseconds.
    func time(_ count: Int, _ chain: @Sendable (SessionClientDriver) async throws -> Void) async throws -> [Int64] {
        let clock = ContinuousClock()
        var samples: [Int64] = []
        samples.reserveCapacity(count)
        for _ in 0 ..< count {
            let before = clock.now
            try await chain(self)
            samples.append(EchoProgress.nanoseconds(clock.now - before))
        }
        return samples
    }

    /// Ends the session and closes the connection.
    func close() async {
        await session.close()
        try? await group.shutdownGracefully()
    }
}
