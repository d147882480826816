public import Foundation
import RpcTesting
public import RpcTransport
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The one set of keys and certificates for the TLS tests of the repository: a throw-away PKI
/// made with the `openssl` command line in a fresh temporary folder, once per process
/// (``shared()``), and deleted when the process exits.
///
/// A test CA (``caCertificatePath``) issues, each with its own EC P-256 key:
/// - ``Identity/server``: `localhost` and `127.0.0.1`, valid now;
/// - ``Identity/expired``: the same names, valid for one month in 2020 only;
/// - ``Identity/wrongHost``: `other.test` only;
/// - ``Identity/client``: a client certificate (extended key usage `clientAuth`);
/// - ``Identity/intermediate``: an intermediate CA, which issues
///   ``Identity/chained``: `localhost` and `127.0.0.1` again, whose full chain (the leaf, then
///   the intermediate) is in ``chainedFullChainPath``.
///
/// Besides, ``Identity/selfSigned`` is its own issuer (`localhost` and `127.0.0.1`): a client
/// trusts it by trusting that very certificate, as with a certificate pinned in an app bundle.
///
/// The files are only read once made; every test of the process may use them at the same time.
/// Making them never blocks a thread of the cooperative pool: the command line runs on a
/// thread of its own, so tests running meanwhile are not starved.
///
/// ```swift
/// let certificates = try await CertificateFixture.shared()
/// let server = certificates.serverConfiguration()           // presents `server`
/// let client = certificates.clientConfiguration()           // trusts the test CA
/// ```
public final class CertificateFixture: Sendable {
    /// One key and certificate of the fixture.
    public enum Identity: String, CaseIterable, Sendable {
        /// A server certificate for `localhost` and `127.0.0.1`, issued by the test CA.
        case server
        /// A server certificate for `localhost` and `127.0.0.1` that expired long ago.
        case expired
        /// A server certificate for `other.test` only, issued by the test CA.
        case wrongHost = "wrong-host"
        /// A client certificate (extended key usage `clientAuth`) issued by the test CA.
        case client
        /// An intermediate CA issued by the test CA; it issued ``chained``.
        case intermediate
        /// A server certificate for `localhost` and `127.0.0.1` issued by ``intermediate``.
        case chained
        /// A self-signed certificate for `localhost` and `127.0.0.1`, its own trust root.
        case selfSigned = "self-signed"
    }

    /// Making or reading the fixture failed.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        /// What went wrong, in one sentence.
        public var description: String

        /// Creates the error described by `description`.
        public init(_ description: String) {
            self.description = description
        }
    }

    /// The folder holding every file.
    public let folder: URL

    /// The base64 SHA-256 digest of each identity's SubjectPublicKeyInfo.
    private let pins: [Identity: String]

    private static let made = Task { try await CertificateFixture.make() }

    /// The fixture of this process, made on first use; every later call returns the same one
    /// (or throws the same error).
    public static func shared() async throws -> CertificateFixture {
        try await made.value
    }

    private init(folder: URL, pins: [Identity: String]) {
        self.folder = folder
        self.pins = pins
    }

    // MARK: - Paths

    /// The path of `name` in ``folder``, whether or not such a file exists (for example to
    /// name a missing file).
    public func path(named name: String) -> String {
        folder.appendingPathComponent(name).path
    }

    /// The test CA's certificate file (PEM).
    public var caCertificatePath: String { path(named: "ca.pem") }

    /// The certificate file (PEM) of `identity`: the certificate alone, without its issuers.
    public func certificatePath(_ identity: Identity) -> String { path(named: "\(identity.rawValue).pem") }

    /// The private key file (PEM) of `identity`.
    public func keyPath(_ identity: Identity) -> String { path(named: "\(identity.rawValue).key") }

    /// The file holding ``Identity/chained`` followed by ``Identity/intermediate``: the chain a
    /// server presents so that clients trusting only the test CA can verify it.
    public var chainedFullChainPath: String { path(named: "chained-full.pem") }

    // MARK: - Contents

    /// The test CA's certificate, as PEM bytes.
    public func caCertificatePEM() throws -> [UInt8] { try bytes(caCertificatePath) }

    /// The certificate of `identity`, as PEM bytes.
    public func certificatePEM(_ identity: Identity) throws -> [UInt8] { try bytes(certificatePath(identity)) }

    /// The private key of `identity`, as PEM bytes.
    public func keyPEM(_ identity: Identity) throws -> [UInt8] { try bytes(keyPath(identity)) }

    /// Copies the certificate of `identity` to `certificatePath` and its key to `keyPath`,
    /// replacing files already there: for tests that need the files under names of their own
    /// (a resource bundle, for example).
    public func copy(_ identity: Identity, certificateTo certificatePath: String, keyTo keyPath: String) throws {
        try Self.replace(certificatePath, with: self.certificatePath(identity))
        try Self.replace(keyPath, with: self.keyPath(identity))
    }

    // MARK: - Sources and configurations

    /// The test CA's certificate, from its file.
    public var caCertificate: CertificateSource { .file(path: caCertificatePath) }

    /// The certificate of `identity`, from its file.
    public func certificate(_ identity: Identity) -> CertificateSource { .file(path: certificatePath(identity)) }

    /// The private key of `identity`, from its file.
    public func privateKey(_ identity: Identity) -> PrivateKeySource { .file(path: keyPath(identity)) }

    /// ``Identity/chained`` followed by ``Identity/intermediate``, from their file.
    public var chainedFullChain: CertificateSource { .file(path: chainedFullChainPath) }

    /// Trust in exactly the test CA.
    public var trustTestCA: TrustRoots { .certificates([caCertificate]) }

    /// A server configuration presenting `identity` (its certificate alone) with its key.
    public func serverConfiguration(_ identity: Identity = .server) -> TLSServerConfiguration {
        TLSServerConfiguration(certificateChain: [certificate(identity)], privateKey: privateKey(identity))
    }

    /// A client configuration that trusts the test CA only, presenting `identity` when given.
    public func clientConfiguration(presenting identity: Identity? = nil) -> TLSClientConfiguration {
        var configuration = TLSClientConfiguration(trustRoots: trustTestCA)
        if let identity {
            configuration.certificateChain = [certificate(identity)]
            configuration.privateKey = privateKey(identity)
        }
        return configuration
    }

    // MARK: - Public key pins

    /// The SHA-256 digest of `identity`'s DER SubjectPublicKeyInfo in base64 (no `sha256/`
    /// prefix), the digest as the `openssl` command line computed it.
    public func publicKeyPinBase64(of identity: Identity) throws -> String {
        guard let pin = pins[identity] else {
            throw Failure("the fixture has no public key pin for \(identity.rawValue)")
        }
        return pin
    }

    /// The pin of `identity`'s public key.
    public func publicKeyPin(of identity: Identity) throws -> PublicKeyPin {
        try PublicKeyPin(base64: publicKeyPinBase64(of: identity))
    }

    // MARK: - Making the files

    private func bytes(_ path: String) throws -> [UInt8] {
        do {
            return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw Failure("could not read \(path): \(error)")
        }
    }

    private static func replace(_ destination: String, with source: String) throws {
        do {
            let contents = try Data(contentsOf: URL(fileURLWithPath: source))
            try contents.write(to: URL(fileURLWithPath: destination), options: .atomic)
        } catch {
            throw Failure("could not copy \(source) to \(destination): \(error)")
        }
    }

    private static func make() async throws -> CertificateFixture {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("rpc-test-pki-\(UUID().uuidString)", isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw Failure("could not create the fixture's folder: \(error)")
        }
        FolderCleanup.register(folder.path)
        do {
            // Dozens of blocking child process runs: on a thread of their own, never on the
            // cooperative pool.
            let pins = try await onOwnThread { try Generator(folder: folder).run() }
            return CertificateFixture(folder: folder, pins: pins)
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
    }
}

/// Runs the `openssl` command line in the fixture's folder, synchronously: only ever on a thread
/// of its own.
private struct Generator {
    let folder: URL

    func run() throws -> [CertificateFixture.Identity: String] {
        try write(Data(Self.configuration.utf8), to: "fixture.cnf")
        try write(Data(), to: "index.txt")
        try write(Data("1000\n".utf8), to: "serial.txt")

        try openssl(
            ["req", "-x509", "-new"] + Self.newKey("ca")
                + ["-subj", "/CN=Rpc Test CA", "-days", "30", "-config", "fixture.cnf", "-extensions", "ca_ext", "-out", "ca.pem"]
        )
        let thirtyDays = ["-days", "30"]
        try issue(.server, commonName: "localhost", extensions: "server_ext", validity: thirtyDays)
        try issue(
            .expired,
            commonName: "localhost",
            extensions: "server_ext",
            validity: ["-startdate", "20200101000000Z", "-enddate", "20200201000000Z"]
        )
        try issue(.wrongHost, commonName: "other.test", extensions: "wrong_host_ext", validity: thirtyDays)
        try issue(.client, commonName: "test-client", extensions: "client_ext", validity: thirtyDays)
        try issue(.intermediate, commonName: "Rpc Test Intermediate", extensions: "intermediate_ext", validity: thirtyDays)
        try issue(.chained, commonName: "localhost", extensions: "server_ext", validity: thirtyDays, issuer: "intermediate")
        try write(try read("chained.pem") + read("intermediate.pem"), to: "chained-full.pem")

        let selfSigned = CertificateFixture.Identity.selfSigned.rawValue
        try openssl(
            ["req", "-x509", "-new"] + Self.newKey(selfSigned)
                + ["-subj", "/CN=localhost", "-days", "30", "-config", "fixture.cnf", "-extensions", "self_signed_ext"]
                + ["-out", "\(selfSigned).pem"]
        )

        return try publicKeyPins()
    }

    /// The `openssl req` arguments that make a new EC P-256 key, unencrypted, into `<name>.key`.
    private static func newKey(_ name: String) -> [String] {
        ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "\(name).key"]
    }

    private func issue(
        _ identity: CertificateFixture.Identity,
        commonName: String,
        extensions: String,
        validity: [String],
        issuer: String = "ca"
    ) throws {
        let name = identity.rawValue
        try openssl(
            ["req", "-new"] + Self.newKey(name)
                + ["-subj", "/CN=\(commonName)", "-config", "fixture.cnf", "-out", "\(name).csr"]
        )
        try openssl(
            [
                "ca", "-batch", "-notext", "-config", "fixture.cnf", "-cert", "\(issuer).pem",
                "-keyfile", "\(issuer).key", "-in", "\(name).csr", "-out", "\(name).pem",
                "-extensions", extensions,
            ] + validity
        )
    }

    /// The pin of every identity: its key's DER SubjectPublicKeyInfo written by the command line,
    /// all of them hashed in one run, each digest in the pin's base64 form.
    private func publicKeyPins() throws -> [CertificateFixture.Identity: String] {
        let identities = CertificateFixture.Identity.allCases
        for identity in identities {
            let name = identity.rawValue
            try openssl(["pkey", "-in", "\(name).key", "-pubout", "-outform", "DER", "-out", "\(name).spki"])
        }
        try openssl(["dgst", "-sha256", "-binary", "-out", "spki.sha256"] + identities.map { "\($0.rawValue).spki" })
        let digests = Array(try read("spki.sha256"))
        guard digests.count == 32 * identities.count else {
            throw CertificateFixture.Failure(
                "openssl dgst wrote \(digests.count) bytes for \(identities.count) keys, not 32 for each"
            )
        }
        var pins: [CertificateFixture.Identity: String] = [:]
        for (index, identity) in identities.enumerated() {
            let pin = try PublicKeyPin(sha256: Array(digests[(32 * index)..<(32 * index + 32)]))
            pins[identity] = String(pin.description.dropFirst("sha256/".count))
        }
        return pins
    }

    private func read(_ name: String) throws -> Data {
        do {
            return try Data(contentsOf: folder.appendingPathComponent(name))
        } catch {
            throw CertificateFixture.Failure("could not read \(name) of the fixture: \(error)")
        }
    }

    private func write(_ data: Data, to name: String) throws {
        do {
            try data.write(to: folder.appendingPathComponent(name))
        } catch {
            throw CertificateFixture.Failure("could not write \(name) of the fixture: \(error)")
        }
    }

    /// Runs `openssl` with `arguments` in the folder; its output goes to a file, so nothing has
    /// to read a pipe while it runs.
    private func openssl(_ arguments: [String]) throws {
        guard let executable = Self.opensslExecutable else {
            throw CertificateFixture.Failure("the openssl command line is not on the PATH")
        }
        let command = "openssl " + arguments.joined(separator: " ")
        let log = folder.appendingPathComponent("openssl.log")
        guard FileManager.default.createFile(atPath: log.path, contents: nil) else {
            throw CertificateFixture.Failure("could not create the log of \(command)")
        }
        let output: FileHandle
        do {
            output = try FileHandle(forWritingTo: log)
        } catch {
            throw CertificateFixture.Failure("could not open the log of \(command): \(error)")
        }
        defer { try? output.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = folder
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = output
        do {
            try process.run()
        } catch {
            throw CertificateFixture.Failure("could not run \(command): \(error)")
        }
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            let text = String(decoding: (try? Data(contentsOf: log)) ?? Data(), as: UTF8.self)
            throw CertificateFixture.Failure("\(command) exited with status \(process.terminationStatus): \(text)")
        }
    }

    /// The `openssl` executable on the `PATH`.
    private static let opensslExecutable: String? = {
        let searchPath = ProcessInfo.processInfo.environment["PATH"] ?? ""
        return searchPath.split(separator: ":")
            .map { "\($0)/openssl" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// The settings of `openssl req` and `openssl ca`: where the CA keeps its records, and one
    /// extension section per kind of certificate.
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
        subjectKeyIdentifier = hash
        authorityKeyIdentifier = keyid

        [ wrong_host_ext ]
        basicConstraints = critical, CA:FALSE
        keyUsage = critical, digitalSignature
        extendedKeyUsage = serverAuth
        subjectAltName = DNS:other.test
        subjectKeyIdentifier = hash
        authorityKeyIdentifier = keyid

        [ client_ext ]
        basicConstraints = critical, CA:FALSE
        keyUsage = critical, digitalSignature
        extendedKeyUsage = clientAuth
        subjectKeyIdentifier = hash
        authorityKeyIdentifier = keyid

        [ self_signed_ext ]
        basicConstraints = critical, CA:TRUE
        keyUsage = critical, digitalSignature, keyCertSign
        extendedKeyUsage = serverAuth
        subjectAltName = DNS:localhost, IP:127.0.0.1
        subjectKeyIdentifier = hash

        """
}

/// Deletes the fixture's folder when the process exits.
private enum FolderCleanup {
    private static let folders = Mutex<[String]>([])

    static func register(_ path: String) {
        let first = folders.withLock { folders in
            folders.append(path)
            return folders.count == 1
        }
        if first {
            atexit {
                for folder in FolderCleanup.folders.withLock({ $0 }) {
                    try? FileManager.default.removeItem(atPath: folder)
                }
            }
        }
    }
}
