import LoopbackSupport

/// Command-line options of `TransportBenchmarks`.
///
/// ```
/// TransportBenchmarks [--runs N] [--round-trips N] [--messages N] [--window N] [--quick]
/// TransportBenchmarks --serve KIND [--cert FILE --key FILE]
/// ```
struct TransportBenchmarkOptions {
    /// How many times each variant is measured; the best run is reported.
    var runs = 2
    /// Sequential round trips timed per run, after the warm-up.
    var roundTrips = 20_000
    /// Messages sent per run in the pipelined measurement, after the warm-up.
    var messages = 200_000
    /// Messages outstanding at any time in the pipelined measurement.
    var window = 64
    /// When set, the process is the server of that kind, not the driver.
    var serve: ServerKind?
    /// The server certificate for `--serve ours-tls`.
    var certificateFile: String?
    /// The server key for `--serve ours-tls`.
    var keyFile: String?

    /// The usage text.
    static let usage = """
        usage: TransportBenchmarks [--runs N] [--round-trips N] [--messages N] [--window N] [--quick]
          --runs N          measurements per variant, the best one reported (default 2)
          --round-trips N   sequential round trips timed per run (default 20000)
          --messages N      messages per run in the pipelined measurement (default 200000)
          --window N        messages in flight in the pipelined measurement (default 64)
          --quick           1 run of 2000 round trips and 20000 messages, to check that it works
        internal: TransportBenchmarks --serve KIND [--cert FILE --key FILE]
          starts an echo server of KIND (\(ServerKind.allCases.map(\.rawValue).joined(separator: ", "))),
          prints `PORT <n>` and serves until its standard input closes
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
                roundTrips = 2_000
                messages = 20_000
            case "--runs":
                runs = try remaining.popPositiveInteger(after: option, usage: Self.usage)
            case "--round-trips":
                roundTrips = try remaining.popPositiveInteger(after: option, usage: Self.usage)
            case "--messages":
                messages = try remaining.popPositiveInteger(after: option, usage: Self.usage)
            case "--window":
                window = try remaining.popPositiveInteger(after: option, usage: Self.usage)
            case "--serve":
                guard let text = remaining.popFirst(), let kind = ServerKind(rawValue: text) else {
                    throw BenchmarkFailure("--serve needs a server kind\n\(Self.usage)")
                }
                serve = kind
            case "--cert":
                certificateFile = remaining.popFirst()
            case "--key":
                keyFile = remaining.popFirst()
            default:
                throw BenchmarkFailure("unknown option \(option)\n\(Self.usage)")
            }
        }
        if messages < window {
            throw BenchmarkFailure("--messages must be at least --window")
        }
    }
}
