import Foundation
import RpcTesting
import RpcTransport
import RpcTransportNIO
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A throw-away PKI for the TLS interop tests, made with the `openssl` command line in a fresh
/// temporary folder. One is made per test run (``shared()``) and deleted when the process exits.
///
/// The command line runs as child processes that are awaited without blocking a thread, so
/// making the files never starves the servers and clients of the tests running meanwhile.
///
/// A test CA issues, each with an EC P-256 key:
/// - ``Identity/server``: `localhost` and `127.0.0.1`, valid now;
/// - ``Identity/expired``: the same names, valid for one day in 2021 only;
/// - ``Identity/wrongHost``: `wrong.example` only;
/// - ``Identity/client``: a client certificate (extended key usage `clientAuth`).
final class CertificateFixture: Sendable {
    /// One certificate and key the CA issued.
    enum Identity: String, CaseIterable, Sendable {
        case server
        case expired
        case wrongHost = "wrong-host"
        case client
    }

    /// Running the command line failed.
    struct CommandFailed: Error, CustomStringConvertible {
        var description: String
    }

    /// The folder holding every file.
    let folder: URL

    private static let made = Task { try await CertificateFixture.make() }

    /// The fixture of this test run, made on first use.
    static func shared() async throws -> CertificateFixture {
        try await made.value
    }

    private init(folder: URL) {
        self.folder = folder
    }

    private static func make() async throws -> CertificateFixture {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("interop-pki-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let fixture = CertificateFixture(folder: folder)
        CertificateFolderCleanup.register(folder.path)
        do {
            try await fixture.makeAuthority()
            for identity in Identity.allCases {
                try await fixture.issue(identity)
            }
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
        return fixture
    }

    // MARK: Paths and sources

    /// The CA certificate's file.
    var caFile: String { file("ca.pem") }

    /// The certificate file of `identity`.
    func certificateFile(_ identity: Identity) -> String { file("\(identity.rawValue).pem") }

    /// The private key file of `identity`.
    func keyFile(_ identity: Identity) -> String { file("\(identity.rawValue).key") }

    /// Trust in exactly the test CA.
    var trustTestCA: TrustRoots { .certificates([.file(path: caFile)]) }

    /// A server configuration presenting `identity`.
    func serverConfiguration(_ identity: Identity = .server) -> TLSServerConfiguration {
        TLSServerConfiguration(
            certificateChain: [.file(path: certificateFile(identity))],
            privateKey: .file(path: keyFile(identity))
        )
    }

    /// A client configuration that trusts the test CA, optionally presenting `identity`.
    func clientConfiguration(presenting identity: Identity? = nil) -> TLSClientConfiguration {
        var configuration = TLSClientConfiguration(trustRoots: trustTestCA)
        if let identity {
            configuration.certificateChain = [.file(path: certificateFile(identity))]
            configuration.privateKey = .file(path: keyFile(identity))
        }
        return configuration
    }

    /// The pin of `identity`'s public key: SHA-256 over its DER SubjectPublicKeyInfo, computed by
    /// the command line.
    func pin(of identity: Identity) async throws -> PublicKeyPin {
        let spki = "\(identity.rawValue)-\(UUID().uuidString).spki.der"
        try await openssl(["pkey", "-in", keyFile(identity), "-pubout", "-outform", "DER", "-out", file(spki)])
        let digest = try await openssl(["dgst", "-sha256", "-binary", file(spki)])
        return try PublicKeyPin(sha256: Array(digest))
    }

    // MARK: Making the files

    private func file(_ name: String) -> String {
        folder.appendingPathComponent(name).path
    }

    private func makeAuthority() async throws {
        try Data(Self.authorityConfiguration.utf8).write(to: URL(fileURLWithPath: file("authority.cnf")))
        try Data().write(to: URL(fileURLWithPath: file("issued.db")))
        try Data("01\n".utf8).write(to: URL(fileURLWithPath: file("serial")))
        try await openssl([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", file("ca.key"), "-out", caFile, "-days", "7", "-subj", "/CN=Interop Test Authority",
            "-config", file("authority.cnf"), "-extensions", "authority",
        ])
    }

    private func issue(_ identity: Identity) async throws {
        let name = identity.rawValue
        let subject: String
        let section: String
        var dates = ["-days", "7"]
        switch identity {
        case .server:
            (subject, section) = ("/CN=localhost", "server")
        case .expired:
            (subject, section) = ("/CN=localhost", "server")
            dates = ["-startdate", "20210301000000Z", "-enddate", "20210302000000Z"]
        case .wrongHost:
            (subject, section) = ("/CN=wrong.example", "wrong_host")
        case .client:
            (subject, section) = ("/CN=interop-client", "client")
        }
        try await openssl([
            "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", keyFile(identity), "-out", file("\(name).csr"), "-subj", subject,
            "-config", file("authority.cnf"),
        ])
        try await openssl(
            [
                "ca", "-batch", "-notext", "-config", file("authority.cnf"), "-extensions", section,
                "-in", file("\(name).csr"), "-out", certificateFile(identity),
            ] + dates
        )
    }

    /// Runs the command line in the fixture's folder and returns its standard output, polling
    /// for its exit (at most 30 seconds) instead of blocking a thread.
    @discardableResult
    private func openssl(_ arguments: [String]) async throws -> Data {
        guard let executable = Self.opensslExecutable else {
            throw CommandFailed(description: "the openssl command line is not on the PATH")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = folder
        // Files rather than pipes: nothing has to read while the process runs.
        let outputFile = folder.appendingPathComponent("command-\(UUID().uuidString).out")
        let errorFile = folder.appendingPathComponent("command-\(UUID().uuidString).err")
        _ = FileManager.default.createFile(atPath: outputFile.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: outputFile)
            try? FileManager.default.removeItem(at: errorFile)
        }
        let output = try FileHandle(forWritingTo: outputFile)
        let errors = try FileHandle(forWritingTo: errorFile)
        defer {
            try? output.close()
            try? errors.close()
        }
        process.standardOutput = output
        process.standardError = errors
        do {
            try process.run()
        } catch {
            throw CommandFailed(description: "could not run the openssl command line: \(error)")
        }
        guard await waitUntil(timeout: .seconds(30), { !process.isRunning }) else {
            process.terminate()
            throw CommandFailed(description: "openssl \(arguments.joined(separator: " ")) did not finish within 30 seconds")
        }
        guard process.terminationStatus == 0 else {
            let errorText = String(decoding: (try? Data(contentsOf: errorFile)) ?? Data(), as: UTF8.self)
            throw CommandFailed(
                description: "openssl \(arguments.joined(separator: " ")) exited with \(process.terminationStatus): \(errorText)"
            )
        }
        return try Data(contentsOf: outputFile)
    }

    /// The `openssl` executable on the `PATH`.
    private static let opensslExecutable: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        return path.split(separator: ":")
            .map { "\($0)/openssl" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// The `openssl req` and `openssl ca` settings: where the CA keeps its files, and one
    /// extension section per kind of certificate.
    private static let authorityConfiguration = """
        [ req ]
        distinguished_name = dn
        prompt = no

        [ dn ]

        [ ca ]
        default_ca = interop

        [ interop ]
        dir = .
        database = issued.db
        serial = serial
        new_certs_dir = .
        certificate = ca.pem
        private_key = ca.key
        default_md = sha256
        policy = anything
        unique_subject = no
        copy_extensions = none

        [ anything ]
        commonName = supplied

        [ authority ]
        basicConstraints = critical, CA:TRUE
        keyUsage = critical, keyCertSign, cRLSign
        subjectKeyIdentifier = hash

        [ server ]
        basicConstraints = critical, CA:FALSE
        keyUsage = critical, digitalSignature
        extendedKeyUsage = serverAuth
        subjectAltName = DNS:localhost, IP:127.0.0.1
        subjectKeyIdentifier = hash
        authorityKeyIdentifier = keyid

        [ wrong_host ]
        basicConstraints = critical, CA:FALSE
        keyUsage = critical, digitalSignature
        extendedKeyUsage = serverAuth
        subjectAltName = DNS:wrong.example
        subjectKeyIdentifier = hash
        authorityKeyIdentifier = keyid

        [ client ]
        basicConstraints = critical, CA:FALSE
        keyUsage = critical, digitalSignature
        extendedKeyUsage = clientAuth
        subjectKeyIdentifier = hash
        authorityKeyIdentifier = keyid

        """
}

/// Deletes the fixture's folder when the test process exits.
private enum CertificateFolderCleanup {
    private static let folders = Mutex<[String]>([])

    static func register(_ path: String) {
        let first = folders.withLock { folders in
            folders.append(path)
            return folders.count == 1
        }
        if first {
            atexit {
                for folder in CertificateFolderCleanup.folders.withLock({ $0 }) {
                    try? FileManager.default.removeItem(atPath: folder)
                }
            }
        }
    }
}
