public import RpcTransport

/// Inside ``TLS``: the oldest TLS version accepted.
///
/// ```swift
/// TLS { MinimumTLSVersion(.v1_3) }
/// ```
public struct MinimumTLSVersion: TLSComponent {
    /// The version.
    public var version: TLSVersion

    /// Accepts `version` and later.
    public init(_ version: TLSVersion) {
        self.version = version
    }

    /// Sets the minimum version.
    public func apply(to tls: inout TLSClientConfiguration) {
        tls.minimumVersion = version
    }
}
