import BenchmarkSupport

/// The figures of one run of one variant: round-trip latency and throughput.
public struct RunResult: Sendable {
    /// The median round-trip time.
    public var p50Microseconds: Double
    /// The 99th percentile round-trip time.
    public var p99Microseconds: Double
    /// Round trips (echoes or calls) completed per second with a window in flight.
    public var messagesPerSecond: Double

    /// Creates a result from its figures.
    public init(p50Microseconds: Double, p99Microseconds: Double, messagesPerSecond: Double) {
        self.p50Microseconds = p50Microseconds
        self.p99Microseconds = p99Microseconds
        self.messagesPerSecond = messagesPerSecond
    }

    /// Creates a result from round-trip times in nanoseconds and `messages` completed in
    /// `elapsed` with a window in flight.
    public init(samples: [Int64], messages: Int, elapsed: Duration) {
        let sorted = samples.sorted()
        self.init(
            p50Microseconds: Self.percentile(0.50, of: sorted),
            p99Microseconds: Self.percentile(0.99, of: sorted),
            messagesPerSecond: Double(messages) / max(elapsed.inSeconds, 1e-9)
        )
    }

    /// The best figure of each kind across `results`: lowest latencies, highest throughput.
    public static func best(of results: [RunResult]) -> RunResult {
        RunResult(
            p50Microseconds: results.map(\.p50Microseconds).min() ?? .nan,
            p99Microseconds: results.map(\.p99Microseconds).min() ?? .nan,
            messagesPerSecond: results.map(\.messagesPerSecond).max() ?? .nan
        )
    }

    /// The nearest-rank percentile of sorted nanosecond samples, in microseconds.
    public static func percentile(_ fraction: Double, of sorted: [Int64]) -> Double {
        guard !sorted.isEmpty else { return .nan }
        let rank = Int((fraction * Double(sorted.count)).rounded(.up))
        return Double(sorted[min(max(rank - 1, 0), sorted.count - 1)]) / 1_000
    }

    /// `p50 … us  p99 … us  … msgs/s`, for the per-run lines.
    public var line: String {
        "p50 " + ReportFormat.right(ReportFormat.fixed(p50Microseconds, decimals: 1), 7) + " us  p99 "
            + ReportFormat.right(ReportFormat.fixed(p99Microseconds, decimals: 1), 7) + " us  "
            + ReportFormat.right(ReportFormat.grouped(messagesPerSecond), 9) + " msgs/s"
    }

    /// The three columns of the summary table.
    public var tableColumns: String {
        ReportFormat.right(ReportFormat.fixed(p50Microseconds, decimals: 1), 9)
            + ReportFormat.right(ReportFormat.fixed(p99Microseconds, decimals: 1), 9)
            + ReportFormat.right(ReportFormat.grouped(messagesPerSecond), 24)
    }
}
