public import Foundation
public import RpcTransport

extension CertificateSource {
    /// The PEM certificate resource `name` of `bundle`: the first of `name` itself,
    /// `name.pem`, `name.crt` and `name.cer` the bundle holds.
    ///
    /// ```swift
    /// let myCertificate = CertificateSource.resource(named: "api-cert", in: .main)
    /// ```
    ///
    /// A resource the bundle does not hold still gives a source, for the path it would have
    /// (`name.pem` in the bundle's resources, or `name` when it ends in `.pem`, `.crt` or `.cer`): connecting with it fails with
    /// ``TransportError/Code/tlsConfigurationInvalid`` naming that path, so a
    /// missing certificate is never silently ignored.
    public static func resource(named name: String, in bundle: Bundle) -> CertificateSource {
        for type in [nil, "pem", "crt", "cer"] {
            if let path = bundle.path(forResource: name, ofType: type) {
                return .file(path: path)
            }
        }
        let directory = bundle.resourcePath ?? bundle.bundlePath
        let named = [".pem", ".crt", ".cer"].contains { name.hasSuffix($0) }
        return .file(path: directory + "/" + (named ? name : name + ".pem"))
    }
}
