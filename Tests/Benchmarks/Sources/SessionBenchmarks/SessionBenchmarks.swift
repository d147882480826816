import BenchmarkSupport
import Foundation
import LoopbackSupport
import RpcTransportNIO

/// Measures Cap'n Web sessions against a bare SwiftNIO WebSocket echo on loopback.
///
/// Each side runs its server in a separate process (a copy of this executable started with
/// `--serve session` or `--serve bare`) and is driven from this one. The session side makes
/// `square` calls with a 128-byte string argument (which `square` returns): sequential calls
/// (p50, p99, calls per second), calls per second with a window of calls in flight, and a
/// 4-step chain (`makeCounter` and three `increment`s) pipelined and awaited one by one. These
/// methods do not suspend, so the target answers them from `callImmediately`; sequential calls
/// of `squareAsync`, the same method answered from the target's `async` `call`, show what the
/// task such a call runs in costs (reported, not part of a ratio). A third server serves the
/// same `square` from an `@Rpc` object (`MacroBenchAPI`), whose sequential calls are compared
/// with the hand-written target's in the same run. The
/// bare side echoes a 128-byte text message: sequential round trips and messages per second
/// with the same window. Both are measured `--runs` times, taking turns, and the best figure of
/// each kind is kept. A fourth server serves ``BenchAPI`` with permessage-deflate accepted, and
/// a client that offers it (as browsers and node's `ws` do) makes the same sequential and
/// concurrent `square` calls, taking turns with the plain session in the same run, so that
/// what compression costs these small calls shows as a ratio. The output ends with
/// `ratio <name> <x.xx>` lines.
@main
enum SessionBenchmarks {
    static func main() async {
        do {
            let options = try SessionBenchmarkOptions(arguments: Array(CommandLine.arguments.dropFirst()))
            if let kind = options.serve {
                try await SessionServer.serve(kind)
            } else if let calls = options.profileCalls {
                try await SessionServer.profile(calls: calls, sequential: options.calls, window: options.window)
            } else {
                try await drive(options)
            }
        } catch {
            FileHandle.standardError.write(Data("SessionBenchmarks: \(error)\n".utf8))
            exit(1)
        }
    }

    /// The size of the bare echo's message and of the `square` argument.
    static let messageSize = 128

    /// The bare echo's message: 128 bytes of text shaped like a Cap'n Web push.
    static let message = EchoMessage.pushShaped(size: messageSize)

    /// The `square` argument: 128 bytes of plain ASCII, nothing to escape.
    static let argument: String = {
        let filler = Array("the quick brown fox jumps over the lazy dog ".utf8)
        return String(decoding: (0 ..< messageSize).map { filler[$0 % filler.count] }, as: UTF8.self)
    }()

    private static func drive(_ options: SessionBenchmarkOptions) async throws {
        let clock = ContinuousClock()
        let start = clock.now
        print("Cap'n Web sessions against a bare SwiftNIO WebSocket echo on loopback, one process per side;")
        print("square(\(messageSize)-byte string) -> \(messageSize)-byte string; echo message \(message.count) B text;")
        print("latency: \(options.calls) sequential calls/round trips; throughput: \(options.pipelinedCalls) calls/messages,"
            + " \(options.window) in flight; \(options.chains) chains of 4 calls; best of \(options.runs) runs per figure")

        var bareRuns: [RunResult] = []
        var sessionRuns: [SessionRunResult] = []
        var macroRuns: [RunResult] = []
        var deflateRuns: [DeflateRunResult] = []
        for run in 1 ... options.runs {
            let bare = try await measureBare(options)
            bareRuns.append(bare)
            print("run \(run)  " + ReportFormat.left("bare-nio-echo", 15) + bare.line)
            let session = try await measureSession(options)
            sessionRuns.append(session)
            print("run \(run)  " + ReportFormat.left("session", 15) + session.figures.line.replacingOccurrences(of: "msgs/s", with: "calls/s")
                + "  sequential " + ReportFormat.grouped(session.sequentialCallsPerSecond) + " calls/s")
            print("run \(run)  " + ReportFormat.left("squareAsync", 15)
                + session.asyncMethod.line.replacingOccurrences(of: "msgs/s", with: "calls/s sequential"))
            print("run \(run)  " + ReportFormat.left("chain", 15) + session.chainLine)
            let macro = try await measureMacro(options)
            macroRuns.append(macro)
            print("run \(run)  " + ReportFormat.left("@Rpc square", 15)
                + macro.line.replacingOccurrences(of: "msgs/s", with: "calls/s sequential"))
            let deflate = try await measureDeflate(options)
            deflateRuns.append(deflate)
            print("run \(run)  " + ReportFormat.left("deflate square", 15)
                + deflate.figures.line.replacingOccurrences(of: "msgs/s", with: "calls/s")
                + "  sequential " + ReportFormat.grouped(deflate.sequentialCallsPerSecond) + " calls/s")
        }

        let bare = RunResult.best(of: bareRuns)
        let session = SessionRunResult.best(of: sessionRuns)
        let macro = RunResult.best(of: macroRuns)
        let deflate = DeflateRunResult.best(of: deflateRuns)
        print("")
        print(ReportFormat.left("side", 16) + ReportFormat.right("p50 us", 9) + ReportFormat.right("p99 us", 9)
            + ReportFormat.right("per s (\(options.window) in flight)", 24) + ReportFormat.right("per s (sequential)", 20))
        print(ReportFormat.left("bare-nio-echo", 16) + bare.tableColumns
            + ReportFormat.right(ReportFormat.grouped(1_000_000 / bare.p50Microseconds) + " (1/p50)", 20))
        print(ReportFormat.left("session square", 16) + session.figures.tableColumns
            + ReportFormat.right(ReportFormat.grouped(session.sequentialCallsPerSecond), 20))
        print(ReportFormat.left("squareAsync", 16)
            + ReportFormat.right(ReportFormat.fixed(session.asyncMethod.p50Microseconds, decimals: 1), 9)
            + ReportFormat.right(ReportFormat.fixed(session.asyncMethod.p99Microseconds, decimals: 1), 9)
            + ReportFormat.right("-", 24)
            + ReportFormat.right(ReportFormat.grouped(session.asyncMethod.messagesPerSecond), 20))
        print(ReportFormat.left("@Rpc square", 16)
            + ReportFormat.right(ReportFormat.fixed(macro.p50Microseconds, decimals: 1), 9)
            + ReportFormat.right(ReportFormat.fixed(macro.p99Microseconds, decimals: 1), 9)
            + ReportFormat.right("-", 24)
            + ReportFormat.right(ReportFormat.grouped(macro.messagesPerSecond), 20))
        print(ReportFormat.left("deflate square", 16) + deflate.figures.tableColumns
            + ReportFormat.right(ReportFormat.grouped(deflate.sequentialCallsPerSecond), 20))
        print("chain of 4      " + session.chainLine)
        print("elapsed " + ReportFormat.fixed((clock.now - start).inSeconds, decimals: 1) + " s")

        let latencyRatio = session.figures.p50Microseconds / bare.p50Microseconds
        let throughputRatio = session.figures.messagesPerSecond / bare.messagesPerSecond
        print("summary latency    session p50 / bare-nio echo p50 = " + ReportFormat.fixed(latencyRatio)
            + " (goal <= 1.30: " + (latencyRatio <= 1.3 ? "met" : "NOT met") + ")")
        print("summary throughput session calls/s / bare-nio echoes/s (\(options.window) in flight) = "
            + ReportFormat.fixed(throughputRatio) + " (goal >= 0.50: " + (throughputRatio >= 0.5 ? "met" : "NOT met") + ")")
        print("summary async method  squareAsync p50 / bare-nio echo p50 = "
            + ReportFormat.fixed(session.asyncMethod.p50Microseconds / bare.p50Microseconds)
            + " (square answered from the target's async method, in a task; not a goal)")
        let macroLatencyRatio = macro.p50Microseconds / bare.p50Microseconds
        let macroVersusHand = macro.p50Microseconds / session.figures.p50Microseconds
        print("summary @Rpc target  @Rpc square p50 / hand-written square p50 = " + ReportFormat.fixed(macroVersusHand)
            + " (the generated conformance answers from callImmediately too)")
        let deflateThroughputRatio = deflate.figures.messagesPerSecond / session.figures.messagesPerSecond
        let deflateSequentialRatio = deflate.sequentialCallsPerSecond / session.sequentialCallsPerSecond
        print("summary deflate  session+deflate calls/s / session calls/s (\(options.window) in flight) = "
            + ReportFormat.fixed(deflateThroughputRatio) + " (goal >= 0.80: " + (deflateThroughputRatio >= 0.8 ? "met" : "NOT met")
            + "); sequential " + ReportFormat.fixed(deflateSequentialRatio))
        print(RatioSummary.ratioLine("session-pipelined-chain-vs-sequential", session.chainRatio))
        print(RatioSummary.ratioLine("session-macro-target-vs-hand-written-latency", macroVersusHand))
        print(RatioSummary.ratioLine("session-macro-target-latency-vs-bare-nio", macroLatencyRatio))
        print(RatioSummary.ratioLine("session-latency-vs-bare-nio", latencyRatio))
        print(RatioSummary.ratioLine("session-throughput-vs-bare-nio-echo", throughputRatio))
        print(RatioSummary.ratioLine("session-deflate-throughput-vs-plain", deflateThroughputRatio))
    }

    /// Starts the session server that accepts permessage-deflate, connects offering it, warms
    /// up, measures sequential and concurrent `square` calls and stops the server.
    private static func measureDeflate(_ options: SessionBenchmarkOptions) async throws -> DeflateRunResult {
        let server = try ServerProcess.start(
            arguments: ["--serve", SessionServerKind.sessionDeflate.rawValue], label: "session-deflate")
        defer { server.stop() }
        let driver = try await SessionClientDriver.connect(port: server.port, argument: argument, deflate: .default)
        let result = try await Watchdog.run("session+deflate measurement", limit: .seconds(300)) {
            _ = try await phase("warm-up sequential calls with deflate") {
                try await driver.sequential(count: min(2_000, options.calls))
            }
            _ = try await phase("warm-up concurrent calls with deflate") {
                try await driver.concurrent(total: min(20_000, options.pipelinedCalls), window: options.window)
            }
            let sequential = try await phase("sequential calls with deflate") { try await driver.sequential(count: options.calls) }
            let elapsed = try await phase("concurrent calls with deflate") {
                try await driver.concurrent(total: options.pipelinedCalls, window: options.window)
            }
            return DeflateRunResult(
                figures: RunResult(samples: sequential.samples, messages: options.pipelinedCalls, elapsed: elapsed),
                sequentialCallsPerSecond: Double(options.calls) / max(sequential.elapsed.inSeconds, 1e-9)
            )
        }
        await driver.close()
        return result
    }

    /// Starts the bare echo server, connects, warms up, measures and stops the server.
    private static func measureBare(_ options: SessionBenchmarkOptions) async throws -> RunResult {
        let server = try ServerProcess.start(arguments: ["--serve", SessionServerKind.bare.rawValue], label: "bare-nio")
        defer { server.stop() }
        let driver = try await BareClientDriver.connect(port: server.port, message: message)
        let result = try await Watchdog.run("bare-nio measurement", limit: .seconds(120)) {
            _ = try await driver.sequential(count: min(2_000, options.calls))
            _ = try await driver.pipelined(total: min(20_000, options.pipelinedCalls), window: options.window)
            let samples = try await driver.sequential(count: options.calls)
            let elapsed = try await driver.pipelined(total: options.pipelinedCalls, window: options.window)
            return RunResult(samples: samples, messages: options.pipelinedCalls, elapsed: elapsed)
        }
        await driver.close()
        return result
    }

    /// Starts the `@Rpc` session server, connects, warms up, measures sequential `square` calls
    /// and stops the server.
    private static func measureMacro(_ options: SessionBenchmarkOptions) async throws -> RunResult {
        let server = try ServerProcess.start(arguments: ["--serve", SessionServerKind.sessionMacro.rawValue], label: "session-macro")
        defer { server.stop() }
        let driver = try await SessionClientDriver.connect(port: server.port, argument: argument)
        let result = try await Watchdog.run("@Rpc session measurement", limit: .seconds(120)) {
            _ = try await phase("warm-up sequential calls of the @Rpc target") {
                try await driver.sequential(count: min(2_000, options.calls))
            }
            let sequential = try await phase("sequential calls of the @Rpc target") {
                try await driver.sequential(count: options.calls)
            }
            return RunResult(samples: sequential.samples, messages: options.calls, elapsed: sequential.elapsed)
        }
        await driver.close()
        return result
    }

    /// Starts the session server, connects, warms up, measures and stops the server.
    private static func measureSession(_ options: SessionBenchmarkOptions) async throws -> SessionRunResult {
        let server = try ServerProcess.start(arguments: ["--serve", SessionServerKind.session.rawValue], label: "session")
        defer { server.stop() }
        let driver = try await SessionClientDriver.connect(port: server.port, argument: argument)
        let result = try await Watchdog.run("session measurement", limit: .seconds(300)) {
            _ = try await phase("warm-up sequential calls") { try await driver.sequential(count: min(2_000, options.calls)) }
            _ = try await phase("warm-up concurrent calls") {
                try await driver.concurrent(total: min(20_000, options.pipelinedCalls), window: options.window)
            }
            _ = try await phase("warm-up pipelined chains") {
                try await driver.time(min(200, options.chains)) { try await $0.pipelinedChain() }
            }
            _ = try await phase("warm-up sequential chains") {
                try await driver.time(min(200, options.chains)) { try await $0.sequentialChain() }
            }

            let sequential = try await phase("sequential calls") { try await driver.sequential(count: options.calls) }
            let asyncMethod = try await phase("sequential calls of an async method") {
                try await driver.sequential(count: options.calls, asyncMethod: true)
            }
            let elapsed = try await phase("concurrent calls") {
                try await driver.concurrent(total: options.pipelinedCalls, window: options.window)
            }
            let pipelinedChains = try await phase("pipelined chains") {
                try await driver.time(options.chains) { try await $0.pipelinedChain() }
            }
            let sequentialChains = try await phase("sequential chains") {
                try await driver.time(options.chains) { try await $0.sequentialChain() }
            }
            return SessionRunResult(
                figures: RunResult(samples: sequential.samples, messages: options.pipelinedCalls, elapsed: elapsed),
                sequentialCallsPerSecond: Double(options.calls) / max(sequential.elapsed.inSeconds, 1e-9),
                asyncMethod: RunResult(samples: asyncMethod.samples, messages: options.calls, elapsed: asyncMethod.elapsed),
                pipelinedChainMicroseconds: RunResult.percentile(0.5, of: pipelinedChains.sorted()),
                sequentialChainMicroseconds: RunResult.percentile(0.5, of: sequentialChains.sorted())
            )
        }
        await driver.close()
        return result
    }
}

/// Runs one phase of a measurement, naming it in the error when it fails.
private func phase<Value: Sendable>(_ name: String, _ body: () async throws -> Value) async throws -> Value {
    do {
        return try await body()
    } catch {
        throw BenchmarkFailure("\(name): \(error)")
    }
}

/// The figures of one run of the session side.
struct SessionRunResult: Sendable {
    /// Sequential call latency (p50, p99) and calls per second with the window in flight.
    var figures: RunResult
    /// Calls per second made one after the other.
    var sequentialCallsPerSecond: Double
    /// Sequential calls of `squareAsync`: p50, p99 and calls per second one after the other.
    var asyncMethod: RunResult
    /// The median time of the 4-step chain, pipelined.
    var pipelinedChainMicroseconds: Double
    /// The median time of the same chain, each call awaited before the next.
    var sequentialChainMicroseconds: Double

    /// The pipelined chain's time over the sequential one's (lower is better).
    var chainRatio: Double { pipelinedChainMicroseconds / sequentialChainMicroseconds }

    /// `pipelined … us  sequential … us  pipelined/sequential …`.
    var chainLine: String {
        "pipelined p50 " + ReportFormat.right(ReportFormat.fixed(pipelinedChainMicroseconds, decimals: 1), 7)
            + " us  sequential p50 " + ReportFormat.right(ReportFormat.fixed(sequentialChainMicroseconds, decimals: 1), 7)
            + " us  pipelined/sequential " + ReportFormat.fixed(chainRatio)
    }

    /// The best figure of each kind across `results`.
    static func best(of results: [SessionRunResult]) -> SessionRunResult {
        SessionRunResult(
            figures: RunResult.best(of: results.map(\.figures)),
            sequentialCallsPerSecond: results.map(\.sequentialCallsPerSecond).max() ?? .nan,
            asyncMethod: RunResult.best(of: results.map(\.asyncMethod)),
            pipelinedChainMicroseconds: results.map(\.pipelinedChainMicroseconds).min() ?? .nan,
            sequentialChainMicroseconds: results.map(\.sequentialChainMicroseconds).min() ?? .nan
        )
    }
}
