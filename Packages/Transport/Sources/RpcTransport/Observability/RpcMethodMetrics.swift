import CoreMetrics
import Synchronization

/// The handles of one method of a ``RpcCallMetrics`` family, made once: started, succeeded,
/// duration, and failed per error code (a bounded table of its own).
final class RpcMethodMetrics: Sendable {
    let started: Counter
    let succeeded: Counter
    let duration: Timer
    private let family: String
    private let dimensions: [(String, String)]
    private let factory: any MetricsFactory
    private let observability: RpcObservability
    private let failures = Mutex<[String: Counter]>([:])

    init(family: String, dimensions: [(String, String)], factory: any MetricsFactory, observability: RpcObservability) {
        self.family = family
        self.dimensions = dimensions
        self.factory = factory
        self.observability = observability
        started = Counter(label: "\(family)_started_total", dimensions: dimensions, factory: factory)
        succeeded = Counter(label: "\(family)_succeeded_total", dimensions: dimensions, factory: factory)
        duration = Timer(label: "\(family)_duration_seconds", dimensions: dimensions, factory: factory)
    }

    /// The failure counter of `code`, made the first time it is seen.
    func failed(code: String) -> Counter {
        let label = observability.labelValue(code)
        let limit = max(observability.maxLabelValues, 1)
        return failures.withLock { table in
            if let existing = table[label] { return existing }
            let key = table.count < limit ? label : RpcObservability.otherLabel
            if let existing = table[key] { return existing }
            let made = Counter(
                label: "\(family)_failed_total", dimensions: dimensions + [("code", key)], factory: factory)
            table[key] = made
            return made
        }
    }
}
