internal import RpcTransport

/// Sets ``Configuration/tls``: starts from the current TLS settings (or the defaults: full
/// verification against the system's roots, TLS 1.2 or later) and applies the block's settings.
///
/// ```swift
/// TLS {
///     PinnedCertificates(files: "api-cert.pem")
///     MinimumTLSVersion(.v1_3)
/// }
/// ```
public struct TLS: ConfigurationComponent, Sendable {
    /// The block's settings, applied in order.
    public var settings: [any TLSComponent]

    /// The settings of the block.
    public init(@TLSBuilder _ settings: () -> [any TLSComponent]) {
        self.settings = settings()
    }

    /// Changes the TLS settings.
    public func apply(to configuration: inout Configuration) {
        var tls = configuration.tls ?? .default
        for setting in settings { setting.apply(to: &tls) }
        configuration.tls = tls
    }
}
