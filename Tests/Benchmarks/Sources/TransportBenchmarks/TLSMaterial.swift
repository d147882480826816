import Foundation
import LoopbackSupport

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
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        guard
            let executable = path.split(separator: ":").map({ "\($0)/openssl" })
                .first(where: { FileManager.default.isExecutableFile(atPath: $0) })
        else {
            remove()
            throw BenchmarkFailure("the openssl command line is not on the PATH; it makes the TLS variant's certificate")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", keyFile, "-out", certificateFile, "-days", "1", "-subj", "/CN=127.0.0.1",
            "-addext", "subjectAltName=IP:127.0.0.1",
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            remove()
            throw BenchmarkFailure("openssl could not make the benchmark's certificate (status \(process.terminationStatus))")
        }
    }

    /// Deletes the files.
    func remove() {
        try? FileManager.default.removeItem(at: folder)
    }
}
