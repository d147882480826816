/// One operation on one input, timed for our implementation and for a baseline in the same run.
public struct Comparison: Sendable {
    /// The operation, for example `parse`.
    public var operation: String
    /// The input, for example `push-message`.
    public var input: String
    /// The name of the baseline implementation, for example `JSONSerialization`.
    public var baselineName: String
    /// Our throughput.
    public var ours: Throughput
    /// The baseline's throughput.
    public var baseline: Throughput

    /// Creates a comparison.
    public init(operation: String, input: String, baselineName: String, ours: Throughput, baseline: Throughput) {
        self.operation = operation
        self.input = input
        self.baselineName = baselineName
        self.ours = ours
        self.baseline = baseline
    }

    /// How many times faster ours is than the baseline.
    public var ratio: Double { ours.ratio(to: baseline) }

    /// One report line: MB/s and operations per second for both sides, then the ratio.
    ///
    /// `serialize  records-64k  64.0 KiB  ours 1234.56 MB/s  18,838 msg/s | JSONSerialization ...`
    public var line: String {
        let size = ReportFormat.size(ours.bytesPerOperation)
        return ReportFormat.left(operation, 10)
            + ReportFormat.left(input, 14)
            + ReportFormat.right(size, 9)
            + "  ours " + Self.figures(ours)
            + " | " + ReportFormat.left(baselineName, 17) + " " + Self.figures(baseline)
            + " | x" + ReportFormat.fixed(ratio)
    }

    private static func figures(_ throughput: Throughput) -> String {
        ReportFormat.right(ReportFormat.fixed(throughput.megabytesPerSecond), 8) + " MB/s "
            + ReportFormat.right(ReportFormat.grouped(throughput.operationsPerSecond), 10) + " msg/s"
    }
}
