import BenchmarkSupport
import Foundation
import RpcTransportNIO

/// Measures our WebSocket transport against a bare SwiftNIO WebSocket echo on loopback.
///
/// Every variant runs its echo server in a separate process (a copy of this executable started
/// with `--serve <kind>`) and drives it from this one with a 128-byte text message: sequential
/// round trips (p50 and p99) and messages per second with a window of messages in flight. Each
/// variant is measured `--runs` times, taking turns, and the best figure of each kind is kept.
/// The output ends with two lines of the form `ratio <name> <x.xx>`: our latency over the bare
/// latency (p50) and our throughput over the bare throughput, both in plaintext without
/// compression.
@main
enum TransportBenchmarks {
    static func main() async {
        do {
            let options = try TransportBenchmarkOptions(arguments: Array(CommandLine.arguments.dropFirst()))
            if let kind = options.serve {
                try await EchoServers.serve(kind, options: options)
            } else {
                try await drive(options)
            }
        } catch {
            FileHandle.standardError.write(Data("TransportBenchmarks: \(error)\n".utf8))
            exit(1)
        }
    }

    /// The message every variant echoes: 128 bytes of ASCII text shaped like a Cap'n Web push.
    static let message: [UInt8] = {
        let head = Array(#"["push",["pipeline",1,["echo"],[""#.utf8)
        let tail = Array(#""]]]"#.utf8)
        let filler = Array("the quick brown fox jumps over the lazy dog ".utf8)
        var bytes = head
        var index = 0
        while bytes.count + tail.count < 128 {
            bytes.append(filler[index % filler.count])
            index += 1
        }
        return bytes + tail
    }()

    private static func drive(_ options: TransportBenchmarkOptions) async throws {
        let clock = ContinuousClock()
        let start = clock.now
        let tls = try TLSMaterial()
        defer { tls.remove() }
        print("Transport layer against bare SwiftNIO on loopback, one process per side; message \(message.count) B text;")
        print("latency: \(options.roundTrips) sequential round trips; throughput: \(options.messages) messages,"
            + " \(options.window) in flight; best of \(options.runs) runs per figure")

        var runs: [String: [RunResult]] = [:]
        for run in 1 ... options.runs {
            for variant in BenchmarkVariant.all {
                let result = try await measure(variant, options: options, tls: tls)
                runs[variant.name, default: []].append(result)
                print("run \(run)  " + ReportFormat.left(variant.name, 18) + result.line)
            }
        }

        print("")
        print(ReportFormat.left("variant", 20) + ReportFormat.right("p50 us", 9) + ReportFormat.right("p99 us", 9)
            + ReportFormat.right("msgs/s (\(options.window) in flight)", 24))
        var best: [String: RunResult] = [:]
        for variant in BenchmarkVariant.all {
            guard let results = runs[variant.name] else { continue }
            let result = RunResult.best(of: results)
            best[variant.name] = result
            print(ReportFormat.left(variant.name, 20) + result.tableColumns)
        }
        print("elapsed " + ReportFormat.fixed((clock.now - start).inSeconds, decimals: 1) + " s")

        guard let ours = best["transport"], let bare = best["bare-nio"] else {
            throw BenchmarkFailure("the plain variants did not run")
        }
        let latencyRatio = ours.p50Microseconds / bare.p50Microseconds
        let throughputRatio = ours.messagesPerSecond / bare.messagesPerSecond
        print("summary latency    transport p50 / bare-nio p50 = " + ReportFormat.fixed(latencyRatio)
            + " (goal <= 1.15: " + (latencyRatio <= 1.15 ? "met" : "NOT met") + ")")
        print("summary throughput transport / bare-nio msgs/s  = " + ReportFormat.fixed(throughputRatio)
            + " (goal >= 0.85: " + (throughputRatio >= 0.85 ? "met" : "NOT met") + ")")
        print(RatioSummary.ratioLine("transport-latency-vs-bare-nio", latencyRatio))
        print(RatioSummary.ratioLine("transport-throughput-vs-bare-nio", throughputRatio))
    }

    /// Starts the variant's server, connects, warms up, measures and stops the server.
    private static func measure(
        _ variant: BenchmarkVariant,
        options: TransportBenchmarkOptions,
        tls: TLSMaterial
    ) async throws -> RunResult {
        let extra = variant.tls ? ["--cert", tls.certificateFile, "--key", tls.keyFile] : []
        let server = try ServerProcess.start(variant.server, extraArguments: extra)
        defer { server.stop() }

        let clientTLS = variant.tls
            ? TLSClientConfiguration(trustRoots: .certificates([.file(path: tls.certificateFile)])) : nil
        let driver: any EchoDriver
        if variant.usesOurClient {
            driver = try await OurClientDriver.connect(
                port: server.port,
                message: message,
                deflate: variant.deflate ? EchoServers.compressEverything : nil,
                tls: clientTLS
            )
        } else {
            driver = try await BareClientDriver.connect(port: server.port, message: message, tls: clientTLS)
        }

        let result = try await Watchdog.run("\(variant.name) measurement", limit: .seconds(120)) {
            _ = try await driver.sequential(count: min(2_000, options.roundTrips))
            _ = try await driver.pipelined(total: min(20_000, options.messages), window: options.window)
            let samples = try await driver.sequential(count: options.roundTrips)
            let elapsed = try await driver.pipelined(total: options.messages, window: options.window)
            return RunResult(samples: samples, messages: options.messages, elapsed: elapsed)
        }
        await driver.close()
        return result
    }
}

/// Ends the process when an operation takes longer than its limit: a stalled connection would
/// otherwise hang the benchmark forever.
enum Watchdog {
    static func run<Value: Sendable>(
        _ what: String,
        limit: Duration,
        _ operation: @Sendable () async throws -> Value
    ) async throws -> Value {
        let watchdog = Task.detached {
            try await Task.sleep(for: limit)
            FileHandle.standardError.write(Data("TransportBenchmarks: \(what) did not finish within \(limit)\n".utf8))
            exit(1)
        }
        defer { watchdog.cancel() }
        return try await operation()
    }
}

/// The figures of one run of one variant.
struct RunResult: Sendable {
    /// The median round-trip time.
    var p50Microseconds: Double
    /// The 99th percentile round-trip time.
    var p99Microseconds: Double
    /// Echoed messages per second with the window in flight.
    var messagesPerSecond: Double

    init(p50Microseconds: Double, p99Microseconds: Double, messagesPerSecond: Double) {
        self.p50Microseconds = p50Microseconds
        self.p99Microseconds = p99Microseconds
        self.messagesPerSecond = messagesPerSecond
    }

    init(samples: [Int64], messages: Int, elapsed: Duration) {
        let sorted = samples.sorted()
        self.init(
            p50Microseconds: Self.percentile(0.50, of: sorted),
            p99Microseconds: Self.percentile(0.99, of: sorted),
            messagesPerSecond: Double(messages) / max(elapsed.inSeconds, 1e-9)
        )
    }

    /// The best figure of each kind across `results`: lowest latencies, highest throughput.
    static func best(of results: [RunResult]) -> RunResult {
        RunResult(
            p50Microseconds: results.map(\.p50Microseconds).min() ?? .nan,
            p99Microseconds: results.map(\.p99Microseconds).min() ?? .nan,
            messagesPerSecond: results.map(\.messagesPerSecond).max() ?? .nan
        )
    }

    /// The nearest-rank percentile of sorted nanosecond samples, in microseconds.
    private static func percentile(_ fraction: Double, of sorted: [Int64]) -> Double {
        guard !sorted.isEmpty else { return .nan }
        let rank = Int((fraction * Double(sorted.count)).rounded(.up))
        return Double(sorted[min(max(rank - 1, 0), sorted.count - 1)]) / 1_000
    }

    /// `p50 … us  p99 … us  … msgs/s`, for the per-run lines.
    var line: String {
        "p50 " + ReportFormat.right(ReportFormat.fixed(p50Microseconds, decimals: 1), 7) + " us  p99 "
            + ReportFormat.right(ReportFormat.fixed(p99Microseconds, decimals: 1), 7) + " us  "
            + ReportFormat.right(ReportFormat.grouped(messagesPerSecond), 9) + " msgs/s"
    }

    /// The three columns of the summary table.
    var tableColumns: String {
        ReportFormat.right(ReportFormat.fixed(p50Microseconds, decimals: 1), 9)
            + ReportFormat.right(ReportFormat.fixed(p99Microseconds, decimals: 1), 9)
            + ReportFormat.right(ReportFormat.grouped(messagesPerSecond), 24)
    }
}
