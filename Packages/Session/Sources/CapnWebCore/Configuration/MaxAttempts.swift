public import RpcTransport

/// Inside ``Reconnect``: how many attempts follow one loss; `nil` for no limit.
///
/// ```swift
/// Reconnect { MaxAttempts(10) }
/// ```
public struct MaxAttempts: ReconnectComponent, Sendable {
    /// The limit; `nil` for none.
    public var count: Int?

    /// At most `count` attempts; `nil` for no limit.
    public init(_ count: Int?) {
        self.count = count
    }

    /// Sets the policy's attempt limit.
    public func apply(to policy: inout ReconnectPolicy) {
        policy.maxAttempts = count
    }
}
