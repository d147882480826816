/// Sets ``Configuration/connectTimeout``: how long opening the connection may take.
///
/// ```swift
/// ConnectTimeout(.seconds(5))
/// ```
public struct ConnectTimeout: ConfigurationComponent, Sendable {
    /// The timeout.
    public var duration: Duration

    /// A connect timeout of `duration`.
    public init(_ duration: Duration) {
        self.duration = duration
    }

    /// Sets the connect timeout.
    public func apply(to configuration: inout Configuration) {
        configuration.connectTimeout = duration
    }
}
