import Foundation
import CRpcOpenSSL
import NIOCore
import NIOPosix
import RpcTransport
@testable import RpcTransportNIO
import RpcTransportTesting
import Testing

@Suite("TLS over the system OpenSSL")
struct TLSTests {
    /// A CA and its certificates, made once for the whole process.
    let fixture: CertificateFixture

    init() async throws {
        fixture = try await CertificateFixture.shared()
    }

    // MARK: - Accepted connections

    @Test("A server certificate chaining to the configured CA is accepted and bytes echo both ways")
    func validChainEchoes() async throws {
        try await withEventLoop { loop in
            let server = try await TLSTestServer.echo(provider: serverProvider(), on: loop)
            let client = try await TLSTestClient.connect(
                to: server.port,
                provider: clientProvider(),
                serverHostname: "localhost",
                expectedEchoBytes: 12,
                on: loop
            )
            // Written before the handshake can have completed: buffered, then sent in order.
            client.send(Array("hello, ".utf8))
            client.send(Array("world".utf8))

            let echoed = try await TLSTestWait.value(of: client.echo)
            #expect(String(buffer: echoed) == "hello, world")
            let handshake = try await TLSTestWait.value(of: client.handshake)
            #expect(handshake.protocolVersion == .v1_3)
            #expect(handshake.applicationProtocol == nil)
            let serverHandshake = try await TLSTestWait.value(of: server.firstHandshake)
            #expect(serverHandshake.protocolVersion == .v1_3)
        }
    }

    @Test("A 1 MiB payload echoes intact through TLS records")
    func largePayloadEchoes() async throws {
        try await withEventLoop { loop in
            let server = try await TLSTestServer.echo(provider: serverProvider(), on: loop)
            let payload = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 11) }
            let client = try await TLSTestClient.connect(
                to: server.port,
                provider: clientProvider(),
                serverHostname: "localhost",
                expectedEchoBytes: payload.count,
                on: loop
            )
            client.send(payload)
            let echoed = try await TLSTestWait.value(of: client.echo, within: .seconds(30))
            #expect(echoed.readableBytes == payload.count)
            #expect(Array(echoed.readableBytesView) == payload)
        }
    }

    @Test("A chain file holding the leaf and its intermediate verifies against the root alone")
    func intermediateChainAccepted() async throws {
        try await withEventLoop { loop in
            let provider = try OpenSSLServerProvider(
                configuration: TLSServerConfiguration(
                    certificateChain: [fixture.chainedFullChain],
                    privateKey: fixture.privateKey(.chained)
                )
            )
            let server = try await TLSTestServer.echo(provider: provider, on: loop)
            let client = try await TLSTestClient.connect(
                to: server.port,
                provider: clientProvider(),
                serverHostname: "localhost",
                expectedEchoBytes: 5,
                on: loop
            )
            client.send(Array("chain".utf8))
            #expect(String(buffer: try await TLSTestWait.value(of: client.echo)) == "chain")
        }
    }

    @Test("An IP address target is verified against the certificate's IP address entries")
    func ipAddressTargetAccepted() async throws {
        try await withEventLoop { loop in
            let server = try await TLSTestServer.echo(provider: serverProvider(), on: loop)
            let client = try await TLSTestClient.connect(
                to: server.port,
                provider: clientProvider(),
                serverHostname: "127.0.0.1",
                on: loop
            )
            let handshake = try await TLSTestWait.value(of: client.handshake)
            #expect(handshake.protocolVersion == .v1_3)
        }
    }

    @Test("A self-signed certificate, copied elsewhere, is its own trust root for its host and IP address",
          arguments: ["localhost", "127.0.0.1"])
    func selfSignedCertificateTrustedAlone(host: String) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tls-copy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let certificate = folder.appendingPathComponent("api-cert.pem").path
        let key = folder.appendingPathComponent("api-cert.key").path
        try fixture.copy(.selfSigned, certificateTo: certificate, keyTo: key)
        let serverProvider = try OpenSSLServerProvider(
            configuration: TLSServerConfiguration(certificateChain: [.file(path: certificate)], privateKey: .file(path: key))
        )
        let trusting = TLSClientConfiguration(trustRoots: .certificates([.file(path: certificate)]))
        try await withEventLoop { loop in
            let server = try await TLSTestServer.echo(provider: serverProvider, on: loop)
            let client = try await TLSTestClient.connect(
                to: server.port,
                provider: try OpenSSLClientProvider(configuration: trusting),
                serverHostname: host,
                expectedEchoBytes: 4,
                on: loop
            )
            client.send(Array("self".utf8))
            #expect(String(buffer: try await TLSTestWait.value(of: client.echo)) == "self")
        }
        // Trusting the test CA instead does not make the self-signed certificate trusted.
        let code = try await clientFailureCode(server: serverProvider, client: clientProvider())
        #expect(code == .certificateUntrusted)
    }

    @Test("A configured server name replaces the target host for verification")
    func configuredServerNameIsVerified() async throws {
        try await withEventLoop { loop in
            let server = try await TLSTestServer.echo(provider: serverProvider(certificate: .wrongHost), on: loop)
            var configuration = trustingCA()
            configuration.serverName = "other.test"
            let client = try await TLSTestClient.connect(
                to: server.port,
                provider: try OpenSSLClientProvider(configuration: configuration),
                serverHostname: "127.0.0.1",
                on: loop
            )
            _ = try await TLSTestWait.value(of: client.handshake)
        }
    }

    @Test("Without hostname verification a certificate for another host is accepted")
    func noHostnameVerificationAcceptsOtherHost() async throws {
        try await withEventLoop { loop in
            let server = try await TLSTestServer.echo(provider: serverProvider(certificate: .wrongHost), on: loop)
            var configuration = trustingCA()
            configuration.serverCertificateVerification = .noHostnameVerification
            let client = try await TLSTestClient.connect(
                to: server.port,
                provider: try OpenSSLClientProvider(configuration: configuration),
                serverHostname: "localhost",
                on: loop
            )
            _ = try await TLSTestWait.value(of: client.handshake)
        }
    }

    @Test("Closing the client sends close_notify, and the server closes its side in answer")
    func closeSendsCloseNotify() async throws {
        try await withEventLoop { loop in
            // With half-closure allowed, the end of the TCP stream alone would leave the server open.
            let server = try await TLSTestServer.echo(provider: serverProvider(), allowHalfClosure: true, on: loop)
            let client = try await TLSTestClient.connect(
                to: server.port,
                provider: clientProvider(),
                serverHostname: "localhost",
                expectedEchoBytes: 3,
                on: loop
            )
            client.send(Array("bye".utf8))
            _ = try await TLSTestWait.value(of: client.echo)
            try await client.channel.close()
            try await TLSTestWait.value(of: server.firstConnectionClosed, within: .seconds(5))
        }
    }

    // MARK: - Rejected server certificates

    @Test("A certificate from a CA outside the system trust store fails as untrusted")
    func systemRootsRejectPrivateCA() async throws {
        let code = try await clientFailureCode(
            server: serverProvider(),
            client: OpenSSLClientProvider(configuration: .default)
        )
        #expect(code == .certificateUntrusted)
    }

    @Test("A leaf presented without its intermediate fails as untrusted")
    func missingIntermediateRejected() async throws {
        let code = try await clientFailureCode(server: serverProvider(certificate: .chained), client: clientProvider())
        #expect(code == .certificateUntrusted)
    }

    @Test("An expired server certificate fails as expired")
    func expiredCertificateRejected() async throws {
        let code = try await clientFailureCode(server: serverProvider(certificate: .expired), client: clientProvider())
        #expect(code == .certificateExpired)
    }

    @Test("A certificate for another host name fails as a hostname mismatch")
    func wrongHostRejected() async throws {
        let code = try await clientFailureCode(
            server: serverProvider(certificate: .wrongHost),
            client: clientProvider()
        )
        #expect(code == .hostnameMismatch)
    }

    @Test("A certificate without the target IP address fails as a hostname mismatch")
    func wrongIPAddressRejected() async throws {
        let code = try await clientFailureCode(
            server: serverProvider(certificate: .wrongHost),
            client: clientProvider(),
            serverHostname: "127.0.0.1"
        )
        #expect(code == .hostnameMismatch)
    }

    // MARK: - Public key pinning

    @Test("A pin of the server key's SubjectPublicKeyInfo lets the connection through")
    func matchingPinAccepted() async throws {
        var configuration = trustingCA()
        let pin = try PublicKeyPin(base64: "sha256/" + fixture.publicKeyPinBase64(of: .server))
        configuration.pinnedPublicKeys = [pin]
        try await withEventLoop { loop in
            let server = try await TLSTestServer.echo(provider: serverProvider(), on: loop)
            let client = try await TLSTestClient.connect(
                to: server.port,
                provider: try OpenSSLClientProvider(configuration: configuration),
                serverHostname: "localhost",
                expectedEchoBytes: 4,
                on: loop
            )
            client.send(Array("pin!".utf8))
            #expect(String(buffer: try await TLSTestWait.value(of: client.echo)) == "pin!")
        }
    }

    @Test("Pins that match no key of the server fail as a pin mismatch, even when the chain verifies")
    func mismatchedPinRejected() async throws {
        var configuration = trustingCA()
        configuration.pinnedPublicKeys = [try PublicKeyPin(base64: fixture.publicKeyPinBase64(of: .client))]
        let code = try await clientFailureCode(
            server: serverProvider(),
            client: OpenSSLClientProvider(configuration: configuration)
        )
        #expect(code == .pinMismatch)
    }

    // MARK: - Mutual TLS

    @Test("A server requiring a client certificate rejects a client without one")
    func requiredClientCertificateMissing() async throws {
        let provider = try serverProvider(clientVerification: .required)
        try await withEventLoop { loop in
            let server = try await TLSTestServer.echo(provider: provider, on: loop)
            let client = try await TLSTestClient.connect(
                to: server.port,
                provider: clientProvider(),
                serverHostname: "localhost",
                on: loop
            )
            // With TLS 1.3 the client finishes its side first; the refusal arrives as an alert.
            #expect(await TLSTestWait.transportErrorCode(of: client.outcome) == .tlsHandshakeFailed)
            #expect(await TLSTestWait.transportErrorCode(of: server.firstHandshake) == .tlsHandshakeFailed)
        }
    }

    @Test("A server requiring a client certificate accepts one issued by its trusted CA")
    func requiredClientCertificatePresented() async throws {
        let provider = try serverProvider(clientVerification: .required)
        var configuration = trustingCA()
        configuration.certificateChain = [.pem(try fixture.certificatePEM(.client))]
        configuration.privateKey = .pem(try fixture.keyPEM(.client))
        try await withEventLoop { loop in
            let server = try await TLSTestServer.echo(provider: provider, on: loop)
            let client = try await TLSTestClient.connect(
                to: server.port,
                provider: try OpenSSLClientProvider(configuration: configuration),
                serverHostname: "localhost",
                expectedEchoBytes: 6,
                on: loop
            )
            client.send(Array("mutual".utf8))
            #expect(String(buffer: try await TLSTestWait.value(of: client.echo)) == "mutual")
            _ = try await TLSTestWait.value(of: server.firstHandshake)
        }
    }

    @Test("A server asking for an optional client certificate accepts a client without one")
    func optionalClientCertificateMissing() async throws {
        let provider = try serverProvider(clientVerification: .optional)
        try await withEventLoop { loop in
            let server = try await TLSTestServer.echo(provider: provider, on: loop)
            let client = try await TLSTestClient.connect(
                to: server.port,
                provider: clientProvider(),
                serverHostname: "localhost",
                expectedEchoBytes: 2,
                on: loop
            )
            client.send(Array("ok".utf8))
            #expect(String(buffer: try await TLSTestWait.value(of: client.echo)) == "ok")
        }
    }

    // MARK: - Versions and ALPN

    @Test("A client requiring TLS 1.3 fails the handshake with a server capped at TLS 1.2")
    func minimumVersionEnforced() async throws {
        var configuration = trustingCA()
        configuration.minimumVersion = .v1_3
        let code = try await clientFailureCode(
            server: serverProvider(maximumVersionTLS12: true),
            client: OpenSSLClientProvider(configuration: configuration)
        )
        #expect(code == .tlsHandshakeFailed)
    }

    @Test("A default client negotiates TLS 1.2 with a server capped at TLS 1.2")
    func tls12Negotiated() async throws {
        try await withEventLoop { loop in
            let server = try await TLSTestServer.echo(provider: serverProvider(maximumVersionTLS12: true), on: loop)
            let client = try await TLSTestClient.connect(
                to: server.port,
                provider: clientProvider(),
                serverHostname: "localhost",
                expectedEchoBytes: 3,
                on: loop
            )
            client.send(Array("1.2".utf8))
            #expect(String(buffer: try await TLSTestWait.value(of: client.echo)) == "1.2")
            #expect(try await TLSTestWait.value(of: client.handshake).protocolVersion == .v1_2)
        }
    }

    @Test("ALPN settles on the first server-preferred protocol the client offers")
    func applicationProtocolNegotiated() async throws {
        var configuration = trustingCA()
        configuration.applicationProtocols = ["http/1.1", "capnweb"]
        try await withEventLoop { loop in
            let server = try await TLSTestServer.echo(
                provider: serverProvider(applicationProtocols: ["capnweb", "http/1.1"]),
                on: loop
            )
            let client = try await TLSTestClient.connect(
                to: server.port,
                provider: try OpenSSLClientProvider(configuration: configuration),
                serverHostname: "localhost",
                on: loop
            )
            #expect(try await TLSTestWait.value(of: client.handshake).applicationProtocol == "capnweb")
            #expect(try await TLSTestWait.value(of: client.handshakeEvent).applicationProtocol == "capnweb")
            #expect(try await TLSTestWait.value(of: server.firstHandshake).applicationProtocol == "capnweb")
        }
    }

    @Test("Without a common ALPN protocol the handshake succeeds with none agreed")
    func applicationProtocolWithoutOverlap() async throws {
        var configuration = trustingCA()
        configuration.applicationProtocols = ["h2"]
        try await withEventLoop { loop in
            let server = try await TLSTestServer.echo(
                provider: serverProvider(applicationProtocols: ["capnweb"]),
                on: loop
            )
            let client = try await TLSTestClient.connect(
                to: server.port,
                provider: try OpenSSLClientProvider(configuration: configuration),
                serverHostname: "localhost",
                on: loop
            )
            let handshake = try await TLSTestWait.value(of: client.handshake)
            #expect(handshake.applicationProtocol == nil)
        }
    }

    // MARK: - Peers that do not speak TLS

    @Test("A peer answering in plaintext fails the handshake quickly with a TLS error")
    func plaintextPeerFails() async throws {
        try await expectPlaintextPeerFailure(.writeGarbage, code: .tlsHandshakeFailed)
    }

    @Test("A peer closing during the handshake fails it quickly with a TLS error")
    func closingPeerFails() async throws {
        try await expectPlaintextPeerFailure(.close, code: .tlsHandshakeFailed)
    }

    @Test("A silent peer fails the handshake once the handshake timeout passes")
    func silentPeerTimesOut() async throws {
        try await expectPlaintextPeerFailure(.stayQuiet, code: .handshakeTimeout, handshakeTimeout: .milliseconds(300))
    }

    // MARK: - Configuration errors

    @Test("A missing certificate file is a configuration error naming the file")
    func missingCertificateFile() throws {
        let missing = fixture.path(named: "missing.pem")
        let error = configurationError {
            _ = try OpenSSLServerProvider(
                configuration: TLSServerConfiguration(
                    certificateChain: [.file(path: missing)],
                    privateKey: fixture.privateKey(.server)
                )
            )
        }
        #expect(error?.code == .tlsConfigurationInvalid)
        #expect(error?.message.contains(missing) == true)
    }

    @Test("A private key that does not belong to the certificate is a configuration error")
    func mismatchedPrivateKey() throws {
        let error = configurationError {
            _ = try OpenSSLServerProvider(
                configuration: TLSServerConfiguration(
                    certificateChain: [fixture.certificate(.server)],
                    privateKey: fixture.privateKey(.client)
                )
            )
        }
        #expect(error?.code == .tlsConfigurationInvalid)
        #expect(error?.message.contains("does not match") == true)
    }

    @Test("Trust roots that hold no certificate are a configuration error")
    func malformedTrustRoots() throws {
        let error = configurationError {
            _ = try OpenSSLClientProvider(
                configuration: TLSClientConfiguration(
                    trustRoots: .certificates([.pem(Array("not a certificate".utf8))])
                )
            )
        }
        #expect(error?.code == .tlsConfigurationInvalid)
        #expect(error?.message.contains("PEM data") == true)
    }

    @Test("Full verification without any server name is refused before connecting")
    func missingServerNameRefused() throws {
        let provider = try clientProvider()
        var code: TransportError.Code?
        do {
            _ = try provider.makeClientHandler(serverHostname: nil)
        } catch {
            code = error.code
        }
        #expect(code == .invalidTarget)
    }

    @Test("Application protocol names must be 1 to 255 bytes long")
    func applicationProtocolNamesValidated() {
        for name in ["", String(repeating: "a", count: 256)] {
            let error = configurationError {
                _ = try OpenSSLClientProvider(configuration: TLSClientConfiguration(applicationProtocols: [name]))
            }
            #expect(error?.code == .tlsConfigurationInvalid)
        }
        #expect(configurationError { _ = try ApplicationProtocolList([String(repeating: "a", count: 255)]) } == nil)
    }

    @Test("Server names lose IPv6 brackets and a trailing dot, and IP literals are recognised")
    func serverNamesNormalized() {
        #expect(OpenSSLClientProvider.normalizedName("[::1]") == "::1")
        #expect(OpenSSLClientProvider.normalizedName("example.com.") == "example.com")
        #expect(OpenSSLClientProvider.normalizedName("") == nil)
        #expect(OpenSSLClientProvider.normalizedName(nil) == nil)
        #expect(OpenSSLConnection.isIPAddress("::1"))
        #expect(OpenSSLConnection.isIPAddress("127.0.0.1"))
        #expect(!OpenSSLConnection.isIPAddress("localhost"))
        #expect(!OpenSSLConnection.isIPAddress("1.2.3"))
    }

    // MARK: - Pins

    @Test("Pins parse from base64 with or without the sha256/ prefix and print with it")
    func pinParsing() throws {
        let digest = (0..<32).map { UInt8($0 * 7) }
        let pin = try PublicKeyPin(sha256: digest)
        let text = pin.description
        #expect(text.hasPrefix("sha256/"))
        #expect(try PublicKeyPin(base64: text) == pin)
        #expect(try PublicKeyPin(base64: String(text.dropFirst("sha256/".count))) == pin)
    }

    @Test("Pins reject text that is not base64 or not a 32-byte digest")
    func pinRejectsMalformedInput() {
        let inputs = ["sha256/not base64!", "AAAA", "sha256/" + String(repeating: "A", count: 43) + "=" + "=", ""]
        for input in inputs {
            var code: TransportError.Code?
            do {
                _ = try PublicKeyPin(base64: input)
            } catch {
                code = error.code
            }
            #expect(code == .tlsConfigurationInvalid, "input: \(input)")
        }
        #expect(throws: TransportError.self) { try PublicKeyPin(sha256: [UInt8](repeating: 0, count: 31)) }
    }

    // MARK: - Helpers

    private func trustingCA() -> TLSClientConfiguration {
        TLSClientConfiguration(trustRoots: .certificates([fixture.caCertificate]))
    }

    private func clientProvider() throws -> OpenSSLClientProvider {
        try OpenSSLClientProvider(configuration: trustingCA())
    }

    private func serverProvider(
        certificate: CertificateFixture.Identity = .server,
        clientVerification: ClientCertificateVerification = .none,
        applicationProtocols: [String] = [],
        maximumVersionTLS12: Bool = false
    ) throws -> OpenSSLServerProvider {
        let provider = try OpenSSLServerProvider(
            configuration: TLSServerConfiguration(
                certificateChain: [fixture.certificate(certificate)],
                privateKey: fixture.privateKey(certificate),
                clientCertificateVerification: clientVerification,
                trustRoots: .certificates([.pem(try fixture.caCertificatePEM())]),
                applicationProtocols: applicationProtocols
            )
        )
        if maximumVersionTLS12 {
            // Only tests need a cap; set before the context makes any connection.
            try #require(CRpcSSL_CTX_set_max_proto_version(provider.context.pointer, TLS1_2_VERSION) == 1)
        }
        return provider
    }

    /// Runs `body` with a fresh event loop, shut down afterwards whatever happens.
    private func withEventLoop(_ body: (any EventLoop) async throws -> Void) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        var failure: (any Error)?
        do {
            try await body(group.next())
        } catch {
            failure = error
        }
        try await group.shutdownGracefully()
        if let failure {
            throw failure
        }
    }

    /// Connects a client to an echo server and returns the code the client's connection failed with.
    private func clientFailureCode(
        server serverProvider: OpenSSLServerProvider,
        client clientProvider: OpenSSLClientProvider,
        serverHostname: String = "localhost"
    ) async throws -> TransportError.Code? {
        var code: TransportError.Code?
        try await withEventLoop { loop in
            let server = try await TLSTestServer.echo(provider: serverProvider, on: loop)
            let client = try await TLSTestClient.connect(
                to: server.port,
                provider: clientProvider,
                serverHostname: serverHostname,
                on: loop
            )
            code = await TLSTestWait.transportErrorCode(of: client.handshake)
            // The same error reaches the pipeline, and the connection closes.
            #expect(await TLSTestWait.transportErrorCode(of: client.outcome) == code)
            try await TLSTestWait.value(of: closePromise(of: client.channel, on: loop))
        }
        return code
    }

    private func expectPlaintextPeerFailure(
        _ behaviour: TLSTestServer.PlaintextBehaviour,
        code expected: TransportError.Code,
        handshakeTimeout: TimeAmount = .seconds(10)
    ) async throws {
        try await withEventLoop { loop in
            let server = try await TLSTestServer.plaintext(behaviour, on: loop)
            let client = try await TLSTestClient.connect(
                to: server.port,
                provider: clientProvider(),
                serverHostname: "localhost",
                handshakeTimeout: handshakeTimeout,
                on: loop
            )
            let code = await TLSTestWait.transportErrorCode(of: client.handshake, within: .seconds(8))
            #expect(code == expected)
            // The pipeline sees the same typed error, not a raw socket error.
            #expect(await TLSTestWait.transportErrorCode(of: client.outcome, within: .seconds(8)) == expected)
            // No clock needed: the code alone tells a TLS failure from the handshake timeout,
            // whatever the machine's speed.
        }
    }

    /// A promise completed when `channel` closes.
    private func closePromise(of channel: any Channel, on loop: any EventLoop) -> EventLoopPromise<Void> {
        let promise = loop.makePromise(of: Void.self)
        channel.closeFuture.cascade(to: promise)
        return promise
    }

    /// The ``TransportError`` `body` throws; `nil` when it throws nothing or something else.
    private func configurationError(_ body: () throws -> Void) -> TransportError? {
        do {
            try body()
            return nil
        } catch {
            return error as? TransportError
        }
    }
}
