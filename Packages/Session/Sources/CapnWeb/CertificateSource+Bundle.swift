public import Foundation
public import RpcTransport

extension CertificateSource {
    /// The PEM certificate resource `name` of `bundle`: `name` itself when it has an
    /// extension, else the first of `name.pem`, `name.crt` and `name.cer` the bundle holds.
    ///
    /// ```swift
    /// let myCertificate = CertificateSource.resource(named: "api-cert", in: .main)
    /// ```
    ///
    /// A resource the bundle does not hold still gives a source, for the path it would have
    /// (`name.pem` in the bundle's resources): connecting with it fails with
    /// ``RpcTransport/TransportError/Code/tlsConfigurationInvalid`` naming that path, so a
    /// missing certificate is never silently ignored.
    public static func resource(named name: String, in bundle: Bundle) -> CertificateSource {
        let candidates: [String?] = name.contains(".") ? [nil] : ["pem", "crt", "cer"]
        for type in candidates {
            if let path = bundle.path(forResource: name, ofType: type) {
                return .file(path: path)
            }
        }
        let directory = bundle.resourcePath ?? bundle.bundlePath
        let file = name.contains(".") ? name : name + ".pem"
        return .file(path: directory + "/" + file)
    }
}
