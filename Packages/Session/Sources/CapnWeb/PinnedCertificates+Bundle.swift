public import Foundation
public import CapnWebCore
internal import RpcTransport

extension PinnedCertificates {
    /// Pins the PEM certificate resource `name` of `bundle` (`name.pem`, `name.crt` or
    /// `name.cer`; see ``CertificateSource/resource(named:in:)``).
    ///
    /// ```swift
    /// TLS { PinnedCertificates(bundle: .main, named: "api-cert") }
    /// ```
    ///
    /// When the bundle has no such resource, connecting fails with
    /// ``RpcError/connectionLost(_:)`` carrying a ``TransportError`` of code
    /// ``TransportError/Code/tlsConfigurationInvalid`` that names the file.
    public init(bundle: Bundle, named name: String) {
        self.init(CertificateSource.resource(named: name, in: bundle))
    }
}
