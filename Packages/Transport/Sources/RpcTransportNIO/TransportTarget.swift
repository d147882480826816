/// Where a client connects: a host name, an IP address, or a Unix domain socket.
///
/// ```swift
/// let local: TransportTarget = .unixDomainSocket(path: "/tmp/rpc.sock")
/// let remote: TransportTarget = .dns(host: "api.example.com", port: 443)
/// ```
public enum TransportTarget: Sendable, Hashable, CustomStringConvertible {
    /// A host name resolved through DNS, and a port.
    case dns(host: String, port: Int)
    /// An IPv4 address in dotted form, and a port.
    case ipv4(address: String, port: Int)
    /// An IPv6 address (without brackets), and a port.
    case ipv6(address: String, port: Int)
    /// A Unix domain socket at a file system path.
    case unixDomainSocket(path: String)

    /// The host to name in the HTTP `Host` header and to verify in TLS; `localhost` for a socket path.
    public var host: String {
        switch self {
        case .dns(let host, _): host
        case .ipv4(let address, _): address
        case .ipv6(let address, _): address
        case .unixDomainSocket: "localhost"
        }
    }

    /// The port; `nil` for a Unix domain socket.
    public var port: Int? {
        switch self {
        case .dns(_, let port), .ipv4(_, let port), .ipv6(_, let port): port
        case .unixDomainSocket: nil
        }
    }

    /// Whether the host is an IP literal (no SNI is sent for those).
    public var isIPLiteral: Bool {
        switch self {
        case .ipv4, .ipv6: true
        case .dns, .unixDomainSocket: false
        }
    }

    /// The value of an HTTP `Host` header for this target.
    public var hostHeader: String {
        switch self {
        case .dns(let host, let port), .ipv4(let host, let port): "\(host):\(port)"
        case .ipv6(let address, let port): "[\(address)]:\(port)"
        case .unixDomainSocket: "localhost"
        }
    }

    /// Chooses the target for a host and port: an IPv4 or IPv6 literal becomes ``ipv4(address:port:)``
    /// or ``ipv6(address:port:)``, anything else ``dns(host:port:)``. Brackets around an IPv6
    /// literal are removed.
    public static func host(_ host: String, port: Int) -> TransportTarget {
        var name = host
        if name.hasPrefix("["), name.hasSuffix("]") {
            name = String(name.dropFirst().dropLast())
        }
        if Self.isIPv4(name) {
            return .ipv4(address: name, port: port)
        }
        if name.contains(":"), name.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) {
            return .ipv6(address: name, port: port)
        }
        return .dns(host: name, port: port)
    }

    /// `host:port`, `[address]:port` or `unix:path`.
    public var description: String {
        switch self {
        case .unixDomainSocket(let path): "unix:\(path)"
        default: hostHeader
        }
    }

    private static func isIPv4(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return false }
        return parts.allSatisfy { part in
            !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isASCII) && part.allSatisfy(\.isNumber)
                && (Int(part) ?? 256) <= 255
        }
    }
}
