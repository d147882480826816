/// How fast a workload ran: operations per second, and the bytes per second that implies.
public struct Throughput: Sendable, Hashable {
    /// Operations completed per second (messages or documents per second).
    public var operationsPerSecond: Double
    /// The size of the input one operation handles.
    public var bytesPerOperation: Int

    /// Creates a throughput.
    public init(operationsPerSecond: Double, bytesPerOperation: Int) {
        self.operationsPerSecond = operationsPerSecond
        self.bytesPerOperation = bytesPerOperation
    }

    /// Input bytes handled per second.
    public var bytesPerSecond: Double { operationsPerSecond * Double(bytesPerOperation) }

    /// Input megabytes (10^6 bytes) handled per second.
    public var megabytesPerSecond: Double { bytesPerSecond / 1_000_000 }

    /// The time one operation takes, in microseconds.
    public var microsecondsPerOperation: Double { 1_000_000 / operationsPerSecond }

    /// How many times faster this throughput is than `baseline`.
    public func ratio(to baseline: Throughput) -> Double {
        operationsPerSecond / baseline.operationsPerSecond
    }
}
