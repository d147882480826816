public import RpcTransport

/// One setting inside a ``TLS`` block: ``PinnedCertificates``, ``PinnedPublicKeys`` or
/// ``MinimumTLSVersion``.
public protocol TLSComponent: Sendable {
    /// Writes this setting into `tls`.
    func apply(to tls: inout TLSClientConfiguration)
}
