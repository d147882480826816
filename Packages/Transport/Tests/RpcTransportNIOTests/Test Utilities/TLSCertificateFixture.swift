import Foundation
import RpcTransportNIO

/// Keys and certificates for the TLS tests, made with the `openssl` command line in a fresh
/// temporary directory that is removed when the fixture goes away.
///
/// Holds a test CA (`ca`) and, issued by it: a server certificate for `localhost` and
/// `127.0.0.1` (`server`), an expired one for the same names (`expired`), one for `other.test`
/// only (`wrong-host`), a client certificate (`client`) and an intermediate CA
/// (`intermediate`), which issued another server certificate for `localhost` (`chained`;
/// `chained-full.pem` holds it followed by the intermediate). Every key is EC P-256, next to
/// its certificate as `<name>.key`.
final class TLSCertificateFixture: Sendable {
    /// The directory holding the files.
    let directory: String

    /// A failure to run the `openssl` command line.
    struct CommandFailed: Error, CustomStringConvertible {
        var description: String
    }

    init() throws {
        let base = FileManager.default.temporaryDirectory
            .appendingPathComponent("rpc-transport-tls-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        directory = base.path
        do {
            try generate()
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
    }

    deinit {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The outcome of making the one fixture the tests of this process share.
    private static let sharedOutcome: Result<TLSCertificateFixture, CommandFailed> = {
        do {
            return .success(try TLSCertificateFixture())
        } catch let error as CommandFailed {
            return .failure(error)
        } catch {
            return .failure(CommandFailed(description: "making the TLS fixture failed: \(error)"))
        }
    }()

    /// One fixture for every test of the process. Making one runs `openssl` a few dozen times,
    /// each run blocking a thread of the small cooperative pool, so tests running in parallel
    /// must not each make their own. The files are only read.
    static func shared() throws -> TLSCertificateFixture {
        try sharedOutcome.get()
    }

    /// The full path of a file in the fixture.
    func path(_ name: String) -> String {
        directory + "/" + name
    }

    /// The contents of a file in the fixture.
    func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: path(name))))
    }

    /// The test CA's certificate, from its file.
    var caCertificate: CertificateSource {
        .file(path: path("ca.pem"))
    }

    /// The certificate `<name>.pem`, from its file.
    func certificate(_ name: String) -> CertificateSource {
        .file(path: path("\(name).pem"))
    }

    /// The private key `<name>.key`, from its file.
    func privateKey(_ name: String) -> PrivateKeySource {
        .file(path: path("\(name).key"))
    }

    /// The SHA-256 digest of a key's SubjectPublicKeyInfo, in base64, as the command line computes it.
    func publicKeyPinBase64(ofKey name: String) throws -> String {
        try openssl(["pkey", "-in", "\(name).key", "-pubout", "-outform", "DER", "-out", "\(name).spki"])
        try openssl(["dgst", "-sha256", "-binary", "-out", "\(name).spki.sha256", "\(name).spki"])
        try openssl(["base64", "-A", "-in", "\(name).spki.sha256", "-out", "\(name).spki.sha256.b64"])
        let text = String(decoding: try bytes("\(name).spki.sha256.b64"), as: UTF8.self)
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    // MARK: - Generation

    private func generate() throws {
        try Data(Self.configuration.utf8).write(to: URL(fileURLWithPath: path("fixture.cnf")))
        try Data().write(to: URL(fileURLWithPath: path("index.txt")))
        try Data("1000\n".utf8).write(to: URL(fileURLWithPath: path("serial.txt")))

        for name in ["ca", "server", "expired", "wrong-host", "client", "intermediate", "chained"] {
            try openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "\(name).key"])
        }
        try openssl([
            "req", "-x509", "-new", "-key", "ca.key", "-subj", "/CN=RpcTransport Test CA", "-days", "30",
            "-config", "fixture.cnf", "-extensions", "ca_ext", "-out", "ca.pem",
        ])
        try issue("server", commonName: "localhost", extensions: "server_ext", validity: ["-days", "30"])
        // Valid for one month, years ago.
        try issue(
            "expired",
            commonName: "localhost",
            extensions: "server_ext",
            validity: ["-startdate", "20200101000000Z", "-enddate", "20200201000000Z"]
        )
        try issue("wrong-host", commonName: "other.test", extensions: "wrong_host_ext", validity: ["-days", "30"])
        try issue("client", commonName: "test-client", extensions: "client_ext", validity: ["-days", "30"])
        try issue(
            "intermediate",
            commonName: "RpcTransport Test Intermediate",
            extensions: "intermediate_ext",
            validity: ["-days", "30"]
        )
        try issue(
            "chained",
            commonName: "localhost",
            extensions: "server_ext",
            validity: ["-days", "30"],
            issuer: "intermediate"
        )
        let fullChain = try bytes("chained.pem") + bytes("intermediate.pem")
        try Data(fullChain).write(to: URL(fileURLWithPath: path("chained-full.pem")))
    }

    private func issue(
        _ name: String,
        commonName: String,
        extensions: String,
        validity: [String],
        issuer: String = "ca"
    ) throws {
        try openssl([
            "req", "-new", "-key", "\(name).key", "-subj", "/CN=\(commonName)", "-config", "fixture.cnf",
            "-out", "\(name).csr",
        ])
        try openssl(
            ["ca", "-batch", "-config", "fixture.cnf", "-cert", "\(issuer).pem", "-keyfile", "\(issuer).key",
             "-in", "\(name).csr", "-out", "\(name).pem", "-notext", "-extensions", extensions] + validity
        )
    }

    @discardableResult
    private func openssl(_ arguments: [String]) throws -> String {
        guard let executable = Self.opensslExecutable else {
            throw CommandFailed(description: "the openssl command line is not on the PATH")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0 else {
            throw CommandFailed(description: "openssl \(arguments.joined(separator: " ")) failed: \(text)")
        }
        return text
    }

    private static let opensslExecutable: String? = {
        let searchPath = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for directory in searchPath.split(separator: ":") {
            let candidate = "\(directory)/openssl"
            if FileManager.default.isExecutableFile(atPath: candidate) {
                return candidate
            }
        }
        return nil
    }()

    private static let configuration = """
        [ req ]
        distinguished_name = subject
        prompt = no

        [ subject ]

        [ ca ]
        default_ca = test_ca

        [ test_ca ]
        database = index.txt
        new_certs_dir = .
        serial = serial.txt
        certificate = ca.pem
        private_key = ca.key
        default_md = sha256
        policy = any_subject
        unique_subject = no
        copy_extensions = none

        [ any_subject ]
        commonName = supplied

        [ ca_ext ]
        basicConstraints = critical, CA:TRUE
        keyUsage = critical, keyCertSign, cRLSign
        subjectKeyIdentifier = hash

        [ intermediate_ext ]
        basicConstraints = critical, CA:TRUE, pathlen:0
        keyUsage = critical, keyCertSign, cRLSign
        subjectKeyIdentifier = hash
        authorityKeyIdentifier = keyid

        [ server_ext ]
        basicConstraints = critical, CA:FALSE
        keyUsage = critical, digitalSignature
        extendedKeyUsage = serverAuth
        subjectAltName = DNS:localhost, IP:127.0.0.1

        [ wrong_host_ext ]
        basicConstraints = critical, CA:FALSE
        keyUsage = critical, digitalSignature
        extendedKeyUsage = serverAuth
        subjectAltName = DNS:other.test

        [ client_ext ]
        basicConstraints = critical, CA:FALSE
        keyUsage = critical, digitalSignature
        extendedKeyUsage = clientAuth

        """
}
