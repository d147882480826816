/// Sets ``Configuration/timeout``: how long an awaited call may take.
///
/// ```swift
/// Timeout(.seconds(30))
/// ```
public struct Timeout: ConfigurationComponent, Sendable {
    /// The timeout.
    public var duration: Duration

    /// A call timeout of `duration`.
    public init(_ duration: Duration) {
        self.duration = duration
    }

    /// Sets the call timeout.
    public func apply(to configuration: inout Configuration) {
        configuration.timeout = duration
    }
}
