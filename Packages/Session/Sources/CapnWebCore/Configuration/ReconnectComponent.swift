public import RpcTransport

/// One setting inside a ``Reconnect`` block: ``MaxAttempts`` or a `Backoff`.
public protocol ReconnectComponent {
    /// Writes this setting into `policy`.
    func apply(to policy: inout ReconnectPolicy)
}

extension Backoff: ReconnectComponent {
    /// Sets the policy's backoff.
    public func apply(to policy: inout ReconnectPolicy) {
        policy.backoff = self
    }
}
