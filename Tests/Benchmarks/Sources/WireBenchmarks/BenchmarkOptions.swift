/// Command-line options of `WireBenchmarks`.
///
/// ```
/// WireBenchmarks [--runs N] [--batch-ms N] [--warmup-ms N] [--quick]
/// ```
struct BenchmarkOptions {
    /// Timed batches per workload; the median is reported.
    var runs = 5
    /// Target duration of one batch, in milliseconds.
    var batchMilliseconds = 250
    /// Warm-up per workload, in milliseconds.
    var warmupMilliseconds = 100

    /// The usage text.
    static let usage = """
        usage: WireBenchmarks [--runs N] [--batch-ms N] [--warmup-ms N] [--quick]
          --runs N       timed batches per workload, median reported (default 5)
          --batch-ms N   target duration of one batch in milliseconds (default 250)
          --warmup-ms N  warm-up per workload in milliseconds (default 100)
          --quick        3 runs of 50 ms batches after 20 ms warm-ups, to check that it works
        """

    /// Parses `arguments` (without the program name).
    ///
    /// - Throws: ``VerificationFailure`` with the usage text for an unknown option or a bad value.
    init(arguments: [String]) throws {
        var remaining = arguments[...]
        while let option = remaining.popFirst() {
            switch option {
            case "--quick":
                runs = 3
                batchMilliseconds = 50
                warmupMilliseconds = 20
            case "--runs":
                runs = try Self.positiveInteger(after: option, in: &remaining)
            case "--batch-ms":
                batchMilliseconds = try Self.positiveInteger(after: option, in: &remaining)
            case "--warmup-ms":
                warmupMilliseconds = try Self.positiveInteger(after: option, in: &remaining)
            default:
                throw VerificationFailure("unknown option \(option)\n\(Self.usage)")
            }
        }
    }

    private static func positiveInteger(after option: String, in remaining: inout ArraySlice<String>) throws -> Int {
        guard let text = remaining.popFirst(), let value = Int(text), value > 0 else {
            throw VerificationFailure("\(option) needs a positive integer\n\(usage)")
        }
        return value
    }
}
