/// Times workloads with a monotonic clock and reports the median throughput of several runs.
///
/// Each workload is first warmed up for ``warmup``, which also estimates its cost and fixes how
/// many operations make one batch of about ``batchDuration`` (at least one). Then ``runs``
/// batches of every workload are timed, the workloads taking turns, so that a slow spell on a
/// shared machine hits all of them alike; the median batch gives the result.
///
/// ```swift
/// let sampler = Sampler()
/// let results = try sampler.measure([
///     Workload("ours", bytesPerOperation: bytes.count) { blackHole(try parser.parse(bytes)) },
///     Workload("baseline", bytesPerOperation: bytes.count) { blackHole(try baseline(bytes)) },
/// ])
/// print(results[0].ratio(to: results[1]))
/// ```
public struct Sampler: Sendable {
    /// How long each workload runs before it is timed.
    public var warmup: Duration
    /// The target duration of one timed batch.
    public var batchDuration: Duration
    /// How many batches of each workload are timed.
    public var runs: Int

    /// Creates a sampler.
    ///
    /// - Parameters:
    ///   - warmup: How long each workload runs before it is timed.
    ///   - batchDuration: The target duration of one timed batch.
    ///   - runs: How many batches of each workload are timed (at least one).
    public init(
        warmup: Duration = .milliseconds(100),
        batchDuration: Duration = .milliseconds(250),
        runs: Int = 5
    ) {
        self.warmup = warmup
        self.batchDuration = batchDuration
        self.runs = max(1, runs)
    }

    /// Measures `workloads`, taking turns between them.
    ///
    /// - Returns: The median throughput of each workload, in the order given.
    /// - Throws: The first error a workload throws.
    public func measure(_ workloads: [Workload]) throws -> [Throughput] {
        let clock = ContinuousClock()
        var batchSizes: [Int] = []
        for workload in workloads {
            batchSizes.append(try calibratedBatchSize(for: workload, clock: clock))
        }
        var samples = Array(repeating: [Double](), count: workloads.count)
        for _ in 0..<runs {
            for (index, workload) in workloads.enumerated() {
                let count = batchSizes[index]
                let operation = workload.operation
                let elapsed = try clock.measure {
                    for _ in 0..<count {
                        try operation()
                    }
                }
                samples[index].append(Double(count) / max(elapsed.inSeconds, 1e-9))
            }
        }
        return workloads.indices.map { index in
            Throughput(
                operationsPerSecond: Statistics.median(samples[index]),
                bytesPerOperation: workloads[index].bytesPerOperation)
        }
    }

    /// Runs `workload` for the warm-up period and returns the number of operations that take
    /// about one batch duration.
    private func calibratedBatchSize(for workload: Workload, clock: ContinuousClock) throws -> Int {
        let operation = workload.operation
        let start = clock.now
        let deadline = start.advanced(by: warmup)
        var count = 0
        repeat {
            try operation()
            count += 1
        } while clock.now < deadline
        let secondsPerOperation = (clock.now - start).inSeconds / Double(count)
        let size = (batchDuration.inSeconds / max(secondsPerOperation, 1e-12)).rounded()
        return Int(min(max(size, 1), 1e9))
    }
}
