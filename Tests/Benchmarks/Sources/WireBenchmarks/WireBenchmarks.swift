import BenchmarkSupport
import Foundation

/// Measures the Wire layer against Foundation's JSON on three inputs, in one run.
///
/// For every input (a Cap'n Web push message, a 64 KiB array of records, a 1 MiB multilingual
/// document) it checks that both sides compute the same thing, then times parsing, serializing
/// and typed decoding for both, and prints one line per input and operation. It ends with the
/// geometric means of the ratios, the last three lines in the fixed form
/// `ratio <name> <x.xx>`.
@main
enum WireBenchmarks {
    static func main() {
        do {
            let options = try BenchmarkOptions(arguments: Array(CommandLine.arguments.dropFirst()))
            try run(options)
        } catch {
            FileHandle.standardError.write(Data("WireBenchmarks: \(error)\n".utf8))
            exit(1)
        }
    }

    private static func run(_ options: BenchmarkOptions) throws {
        let clock = ContinuousClock()
        let start = clock.now
        let sampler = Sampler(
            warmup: .milliseconds(options.warmupMilliseconds),
            batchDuration: .milliseconds(options.batchMilliseconds),
            runs: options.runs)

        print("Wire layer against Foundation: median of \(sampler.runs) batches of ~\(options.batchMilliseconds) ms each,"
            + " taking turns; MB/s counts input bytes (10^6), msg/s whole inputs per second")
        var verified: [VerifiedInput] = []
        for input in InputCatalog.all() {
            verified.append(try VerifiedInput(checking: input))
            print("input     " + ReportFormat.left(input.name, 14) + ReportFormat.right("\(input.bytes.count) B", 11)
                + "  checked: same content, output reads back equal, decoders agree")
        }

        var summary = RatioSummary()
        for operation in WireOperation.allCases {
            summary.declare(operation.ratioName, label: operation.label, goal: operation.goal)
        }
        for operation in WireOperation.allCases {
            for input in verified {
                let (ours, baseline) = input.workloads(for: operation)
                let results = try sampler.measure([ours, baseline])
                let comparison = Comparison(
                    operation: operation.label,
                    input: input.input.name,
                    baselineName: operation.baselineName,
                    ours: results[0],
                    baseline: results[1])
                print(comparison.line)
                summary.record(comparison.ratio, for: operation.ratioName)
            }
        }

        let push = InputCatalog.pushMessage()
        print(try CapnWebThroughput.report(name: push.name, bytes: push.bytes, sampler: sampler))
        print("elapsed   " + ReportFormat.fixed((clock.now - start).inSeconds, decimals: 1) + " s")
        for line in summary.summaryLines {
            print(line)
        }
        for line in summary.ratioLines {
            print(line)
        }
    }
}
