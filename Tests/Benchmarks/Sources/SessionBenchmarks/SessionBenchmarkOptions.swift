import LoopbackSupport

/// Command-line options of `SessionBenchmarks`.
///
/// ```
/// SessionBenchmarks [--runs N] [--calls N] [--pipelined-calls N] [--window N] [--chains N] [--quick]
/// SessionBenchmarks --serve KIND
/// ```
struct SessionBenchmarkOptions {
    /// How many times each side is measured; the best figure of each kind is reported.
    var runs = 3
    /// Sequential calls (and bare round trips) timed per run, after the warm-up.
    var calls = 10_000
    /// Calls (and bare messages) per run in the throughput measurement, after the warm-up.
    var pipelinedCalls = 100_000
    /// Calls (and bare messages) outstanding at any time in the throughput measurement.
    var window = 64
    /// Chains timed per run, pipelined and sequential each.
    var chains = 2_000
    /// When set, the process is the server of that kind, not the driver.
    var serve: SessionServerKind?
    /// When set, server and client run in this one process: ``calls`` sequential calls, then this
    /// many with the window in flight, and nothing is timed: a fixed workload for a profiler.
    var profileCalls: Int?

    /// The usage text.
    static let usage = """
        usage: SessionBenchmarks [--runs N] [--calls N] [--pipelined-calls N] [--window N] [--chains N] [--quick]
          --runs N             measurements per side, the best figure reported (default 3)
          --calls N            sequential calls (bare: round trips) timed per run (default 10000)
          --pipelined-calls N  calls (bare: messages) per run with the window in flight (default 100000)
          --window N           calls in flight in the throughput measurement (default 64)
          --chains N           4-step chains timed per run, pipelined and sequential (default 2000)
          --quick              1 run with a tenth of the counts, to check that it works
        internal: SessionBenchmarks --serve KIND
          starts a server of KIND (\(SessionServerKind.allCases.map(\.rawValue).joined(separator: ", "))),
          prints `PORT <n>` and serves until its standard input closes
        internal: SessionBenchmarks --profile N [--calls M] [--window W]
          serves and calls in one process: M sequential calls (default 10000), then N with the window in flight
          (a fixed workload to run under a profiler such as callgrind)
        """

    /// Parses `arguments` (without the program name).
    ///
    /// - Throws: ``BenchmarkFailure`` with the usage text for an unknown option or a bad value.
    init(arguments: [String]) throws {
        var remaining = arguments[...]
        while let option = remaining.popFirst() {
            switch option {
            case "--quick":
                runs = 1
                calls = 1_000
                pipelinedCalls = 10_000
                chains = 200
            case "--runs":
                runs = try remaining.popPositiveInteger(after: option, usage: Self.usage)
            case "--calls":
                calls = try remaining.popPositiveInteger(after: option, usage: Self.usage)
            case "--pipelined-calls":
                pipelinedCalls = try remaining.popPositiveInteger(after: option, usage: Self.usage)
            case "--window":
                window = try remaining.popPositiveInteger(after: option, usage: Self.usage)
            case "--chains":
                chains = try remaining.popPositiveInteger(after: option, usage: Self.usage)
            case "--profile":
                profileCalls = try remaining.popPositiveInteger(after: option, usage: Self.usage)
            case "--serve":
                guard let text = remaining.popFirst(), let kind = SessionServerKind(rawValue: text) else {
                    throw BenchmarkFailure("--serve needs a server kind\n\(Self.usage)")
                }
                serve = kind
            default:
                throw BenchmarkFailure("unknown option \(option)\n\(Self.usage)")
            }
        }
        if pipelinedCalls < window {
            throw BenchmarkFailure("--pipelined-calls must be at least --window")
        }
    }
}
