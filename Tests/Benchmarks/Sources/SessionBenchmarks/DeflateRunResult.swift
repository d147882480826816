import LoopbackSupport

/// The figures of one run of the session with permessage-deflate negotiated.
struct DeflateRunResult: Sendable {
    /// Sequential call latency (p50, p99) and calls per second with the window in flight.
    var figures: RunResult
    /// Calls per second made one after the other.
    var sequentialCallsPerSecond: Double

    /// The best figure of each kind across `results`.
    static func best(of results: [DeflateRunResult]) -> DeflateRunResult {
        DeflateRunResult(
            figures: RunResult.best(of: results.map(\.figures)),
            sequentialCallsPerSecond: results.map(\.sequentialCallsPerSecond).max() ?? .nan
        )
    }
}
