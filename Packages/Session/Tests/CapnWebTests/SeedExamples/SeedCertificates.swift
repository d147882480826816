import Foundation
import Testing
import RpcTransportTesting
import CapnWeb

/// A directory used as a resource bundle, holding certificates of the repository's one test
/// fixture: `api-cert.pem` (its self-signed certificate for 127.0.0.1, with its key
/// `api-cert.key`), which the TLS test server presents, and `other-cert.pem` (its CA-issued
/// server certificate), which it does not. Removed when done.
final class SeedCertificates: Sendable {
    let directory: URL
    /// The directory as a `Bundle`, standing for the seed's `.main`.
    let bundle: Bundle

    init() async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("capnweb-seed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let fixture = try await CertificateFixture.shared()
        for (name, identity) in [("api-cert", CertificateFixture.Identity.selfSigned), ("other-cert", .server)] {
            try fixture.copy(
                identity,
                certificateTo: directory.appendingPathComponent("\(name).pem").path,
                keyTo: directory.appendingPathComponent("\(name).key").path)
        }
        bundle = try #require(Bundle(path: directory.path))
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    /// TLS settings for a server presenting `api-cert`.
    var serverTLS: TLSServerConfiguration {
        TLSServerConfiguration(
            certificateChain: [.file(path: directory.appendingPathComponent("api-cert.pem").path)],
            privateKey: .file(path: directory.appendingPathComponent("api-cert.key").path))
    }
}

/// Evaluates a configuration written in the builder form, as `connect(to:configure:)` does.
func builtConfiguration(@ConfigurationBuilder _ configure: () -> Configuration) -> Configuration {
    configure()
}

/// The headers of every connection the server admitted, in order, names in lower case.
final class AdmittedHeaders: Sendable {
    let recorder = Recorder<[String: String]>()

    /// An admission that records the connection's headers and accepts it.
    var admit: @Sendable (RpcConnectionInfo) async -> RpcAdmission {
        { [recorder] info in
            var headers: [String: String] = [:]
            for (name, value) in info.headers { headers[name.lowercased()] = value }
            recorder.append(headers)
            return .accept
        }
    }

    var all: [[String: String]] { recorder.all }
}
