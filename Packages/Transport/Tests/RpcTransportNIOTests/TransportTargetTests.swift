import RpcTransportNIO
import Testing

@Suite("Transport target")
struct TransportTargetTests {
    @Test(
        "a host and port become the right kind of target",
        arguments: [
            ("127.0.0.1", TransportTarget.ipv4(address: "127.0.0.1", port: 80)),
            ("::1", .ipv6(address: "::1", port: 80)),
            ("[::1]", .ipv6(address: "::1", port: 80)),
            ("localhost", .dns(host: "localhost", port: 80)),
            ("256.1.1.1", .dns(host: "256.1.1.1", port: 80)),
            ("api.example.com", .dns(host: "api.example.com", port: 80)),
        ]
    )
    func classifiesHosts(host: String, expected: TransportTarget) {
        #expect(TransportTarget.host(host, port: 80) == expected)
    }

    @Test("Host headers bracket IPv6 literals and sockets name localhost")
    func hostHeaders() {
        #expect(TransportTarget.ipv6(address: "::1", port: 8080).hostHeader == "[::1]:8080")
        #expect(TransportTarget.dns(host: "a.test", port: 443).hostHeader == "a.test:443")
        #expect(TransportTarget.unixDomainSocket(path: "/tmp/s").hostHeader == "localhost")
        #expect(TransportTarget.unixDomainSocket(path: "/tmp/s").port == nil)
        #expect(TransportTarget.ipv4(address: "10.0.0.1", port: 1).isIPLiteral)
        #expect(!TransportTarget.dns(host: "a.test", port: 1).isIPLiteral)
    }
}
