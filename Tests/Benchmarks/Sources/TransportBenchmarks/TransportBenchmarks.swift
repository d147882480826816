import BenchmarkSupport
import Foundation
import LoopbackSupport
import RpcTransportNIO
import RpcTransportTesting

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
    static let message = EchoMessage.pushShaped(size: 128)

    private static func drive(_ options: TransportBenchmarkOptions) async throws {
        let clock = ContinuousClock()
        let start = clock.now
        // The TLS variants' server certificate, issued by the test CA the client trusts; the files
        // are deleted when the process exits.
        let tls: CertificateFixture
        do {
            tls = try await CertificateFixture.shared()
        } catch {
            throw BenchmarkFailure("openssl could not make the benchmark's certificates (\(error))")
        }
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
        tls: CertificateFixture
    ) async throws -> RunResult {
        let extra = variant.tls ? ["--cert", tls.certificatePath(.server), "--key", tls.keyPath(.server)] : []
        let server = try ServerProcess.start(arguments: ["--serve", variant.server.rawValue] + extra, label: variant.name)
        defer { server.stop() }

        let clientTLS = variant.tls ? tls.clientConfiguration() : nil
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
