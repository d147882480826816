public import CoreMetrics
public import Tracing

/// Where a server or client of the stack records its metrics and spans.
///
/// Each field left `nil` means the process-wide one (`MetricsSystem.factory`,
/// `InstrumentationSystem.tracer`), read once when the server or client starts, so that an
/// application bootstraps swift-metrics and swift-distributed-tracing as usual. Tests give their
/// own factory and tracer instead of bootstrapping the globals:
///
/// ```swift
/// var configuration = TransportServerConfiguration(address: .host("127.0.0.1", port: 0))
/// configuration.observability = RpcObservability(metricsFactory: TestMetrics(), tracer: InMemoryTracer())
/// ```
///
/// With the no-op factory and the no-op tracer (the defaults when nothing is bootstrapped),
/// nothing is recorded and no call pays for more than a check. The metric names are listed in
/// the observability guide of the repository.
public struct RpcObservability: Sendable {
    /// The metrics factory; `nil` (the default) for `MetricsSystem.factory`.
    public var metricsFactory: (any MetricsFactory)?
    /// The tracer; `nil` (the default) for `InstrumentationSystem.tracer`.
    public var tracer: (any Tracer)?
    /// How many distinct values one label of one metric may take (method names and error codes
    /// come from the wire); later values are recorded as `other`. Default 128.
    public var maxLabelValues: Int
    /// The longest label value kept, in UTF-8 bytes; longer ones are recorded as `other`.
    /// Default 100.
    public var maxLabelLength: Int

    /// The label value that stands for every value past ``maxLabelValues`` or longer than
    /// ``maxLabelLength``.
    public static let otherLabel = "other"

    /// Creates settings; every parameter has the default its property documents.
    public init(
        metricsFactory: (any MetricsFactory)? = nil,
        tracer: (any Tracer)? = nil,
        maxLabelValues: Int = 128,
        maxLabelLength: Int = 100
    ) {
        self.metricsFactory = metricsFactory
        self.tracer = tracer
        self.maxLabelValues = maxLabelValues
        self.maxLabelLength = maxLabelLength
    }

    /// The factory that records, or `nil` when metrics go nowhere (the no-op factory). Reads the
    /// global factory when none is set: call it once, when a server or client starts.
    public var activeMetricsFactory: (any MetricsFactory)? {
        let factory = metricsFactory ?? MetricsSystem.factory
        return factory is NOOPMetricsHandler ? nil : factory
    }

    /// The tracer that records, or `nil` when spans go nowhere (the no-op tracer). Reads the
    /// global tracer when none is set: call it once, when a server or client starts.
    public var activeTracer: (any Tracer)? {
        let tracer = self.tracer ?? InstrumentationSystem.tracer
        return tracer is NoOpTracer ? nil : tracer
    }

    /// `value` as a label value: itself, or ``otherLabel`` when longer than ``maxLabelLength``.
    func labelValue(_ value: String) -> String {
        value.utf8.count <= max(maxLabelLength, 1) ? value : Self.otherLabel
    }
}
