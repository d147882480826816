import Foundation
import LoopbackSupport
import RpcTesting

/// A self-signed certificate for `127.0.0.1`, made with the `openssl` command line in a
/// temporary folder for the TLS variant, and deleted afterwards.
final class TLSMaterial {
    /// The folder holding the files.
    let folder: URL

    /// The certificate, which is also the client's only trust root.
    var certificateFile: String { folder.appendingPathComponent("server.pem").path }
    /// The certificate's private key.
    var keyFile: String { folder.appendingPathComponent("server.key").path }

    init() throws {
        folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("transport-bench-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        do {
            try SelfSignedCertificate.write(certificatePath: certificateFile, keyPath: keyFile)
        } catch {
            remove()
            throw BenchmarkFailure("openssl could not make the benchmark's certificate (\(error))")
        }
    }

    /// Deletes the files.
    func remove() {
        try? FileManager.default.removeItem(at: folder)
    }
}
