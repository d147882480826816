public import RpcTransport

/// Sets ``Configuration/reconnect``: starts from `ReconnectPolicy.default` (10
/// attempts, the default backoff) and applies the block's settings.
///
/// ```swift
/// Reconnect {
///     MaxAttempts(10)
///     Backoff(.exponential(base: .seconds(1), max: .seconds(30)))
/// }
/// ```
public struct Reconnect: ConfigurationComponent, Sendable {
    /// The resulting policy.
    public var policy: ReconnectPolicy

    /// The default policy changed by `settings`.
    public init(@ReconnectBuilder _ settings: () -> [any ReconnectComponent] = { [] }) {
        var policy = ReconnectPolicy.default
        for setting in settings() { setting.apply(to: &policy) }
        self.policy = policy
    }

    /// Exactly `policy`.
    public init(_ policy: ReconnectPolicy) {
        self.policy = policy
    }

    /// Sets the reconnect policy.
    public func apply(to configuration: inout Configuration) {
        configuration.reconnect = policy
    }
}
