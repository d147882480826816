import Foundation

/// A self-signed certificate for `127.0.0.1` (P-256, valid two days) and its private key, written
/// as PEM files by the `openssl` command line, for tests of TLS clients and servers.
public enum SelfSignedCertificate {
    /// Why the certificate could not be made.
    public struct Failure: Error, CustomStringConvertible {
        /// The `openssl` command's exit status.
        public var status: Int32
        /// A one-line description.
        public var description: String { "openssl req exited with status \(status)" }
    }

    /// Writes the certificate to `certificatePath` and its key to `keyPath`.
    ///
    /// - Throws: ``Failure`` when `openssl` fails, or what `Process` throws when it cannot start.
    public static func write(certificatePath: String, keyPath: String) throws {
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        openssl.arguments = [
            "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", keyPath, "-out", certificatePath, "-days", "2", "-subj", "/CN=127.0.0.1",
            "-addext", "subjectAltName=IP:127.0.0.1",
        ]
        openssl.standardOutput = FileHandle.nullDevice
        openssl.standardError = FileHandle.nullDevice
        try openssl.run()
        openssl.waitUntilExit()
        guard openssl.terminationStatus == 0 else { throw Failure(status: openssl.terminationStatus) }
    }
}
