/// A client's TLS settings under the name the Cap'n Web Swift API uses; the same type as
/// ``TLSClientConfiguration``.
///
/// ```swift
/// config.tls = TLSConfiguration(minimumVersion: .TLSv12, pinnedCertificates: [myCertificate])
/// ```
public typealias TLSConfiguration = TLSClientConfiguration
