import CoreMetrics
import Synchronization

/// The metrics of one kind of call a server or client makes or answers (Cap'n Web calls,
/// RivetKit actions, Tinyvex mutations, ...), by method: four metrics named after a family,
/// created once per method and kept in a bounded table.
///
/// For the family `rpc_server_calls` and the protocol `capnweb`:
/// - `rpc_server_calls_started_total{protocol="capnweb", method}` (counter)
/// - `rpc_server_calls_succeeded_total{protocol="capnweb", method}` (counter)
/// - `rpc_server_calls_failed_total{protocol="capnweb", method, code}` (counter)
/// - `rpc_server_calls_duration_seconds{protocol="capnweb", method}` (timer)
///
/// Method names and error codes come from the wire: past
/// ``RpcObservability/maxLabelValues`` distinct values (or longer than
/// ``RpcObservability/maxLabelLength``) they are recorded as `other`.
///
/// ```swift
/// let metrics = RpcCallMetrics(family: "rpc_server_calls", protocolName: "capnweb", observability: observability)
/// let measurement = metrics?.begin("square")
/// measurement?.succeeded()
/// ```
public final class RpcCallMetrics: Sendable {
    /// The family: the metric names' common start.
    public let family: String
    /// The value of the `protocol` label.
    public let protocolName: String
    private let factory: any MetricsFactory
    private let observability: RpcObservability
    private let methods = Mutex<[String: RpcMethodMetrics]>([:])

    /// Creates the metrics of a family, or `nil` when metrics go nowhere (the no-op factory),
    /// so that callers skip all work with one check.
    public init?(family: String, protocolName: String, observability: RpcObservability) {
        guard let factory = observability.activeMetricsFactory else { return nil }
        self.family = family
        self.protocolName = protocolName
        self.factory = factory
        self.observability = observability
    }

    /// Counts a call to `method` as started and returns its measurement, to be ended once with
    /// ``RpcCallMeasurement/succeeded()`` or ``RpcCallMeasurement/failed(code:)``.
    public func begin(_ method: String) -> RpcCallMeasurement {
        let handles = self.handles(for: method)
        handles.started.increment()
        return RpcCallMeasurement(handles: handles, start: ContinuousClock.now)
    }

    /// The handles of `method`, made the first time it is seen.
    func handles(for method: String) -> RpcMethodMetrics {
        let label = observability.labelValue(method)
        let limit = max(observability.maxLabelValues, 1)
        return methods.withLock { table in
            if let existing = table[label] { return existing }
            let key = table.count < limit ? label : RpcObservability.otherLabel
            if let existing = table[key] { return existing }
            let made = RpcMethodMetrics(
                family: family,
                dimensions: [("protocol", protocolName), ("method", key)],
                factory: factory,
                observability: observability
            )
            table[key] = made
            return made
        }
    }
}

/// One call being measured: ended once, with its outcome.
public struct RpcCallMeasurement: Sendable {
    let handles: RpcMethodMetrics
    let start: ContinuousClock.Instant

    /// Counts the call as succeeded and records its duration.
    public func succeeded() {
        handles.succeeded.increment()
        record()
    }

    /// Counts the call as failed with an error code (the layer's stable code, e.g. `TVX003`,
    /// or the error's type name for an application error) and records its duration.
    public func failed(code: String) {
        handles.failed(code: code).increment()
        record()
    }

    private func record() {
        handles.duration.recordNanoseconds(Self.nanoseconds(ContinuousClock.now - start))
    }

    /// `duration` in whole nanoseconds, at least 0 and at most `Int64.max`.
    static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return .max }
        let (total, overflowAgain) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
        return overflowAgain ? .max : max(total, 0)
    }
}
