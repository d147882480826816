import RpcTransport

/// A `ws`, `wss`, `http` or `https` URL taken apart into what a client needs: whether to use TLS,
/// where to connect, the request target and the `Host` header.
struct EndpointURL: Sendable, Hashable {
    /// The URL schemes the clients understand.
    enum Scheme: String, Sendable, Hashable {
        case ws
        case wss
        case http
        case https
        /// PostgreSQL's (``PostgresURL``), under either of its names.
        case postgres
        case postgresql

        /// Whether the scheme calls for TLS.
        var isSecure: Bool { self == .wss || self == .https }

        /// The port used when the URL names none.
        var defaultPort: Int {
            switch self {
            case .postgres, .postgresql: 5432
            default: isSecure ? 443 : 80
            }
        }
    }

    /// The scheme.
    var scheme: Scheme
    /// Where to connect.
    var target: TransportTarget
    /// The path and query to request; `/` when the URL has no path.
    var requestTarget: String
    /// The `Host` header: the host, bracketed for IPv6, with the port unless it is the default.
    var hostHeader: String

    /// Parses `text`, accepting only the given schemes.
    ///
    /// - Throws: ``TransportError`` with code ``TransportError/Code/invalidTarget`` for another
    ///   scheme, a missing or malformed host, or a port outside 1–65535.
    static func parse(_ text: String, schemes: Set<Scheme>) throws(TransportError) -> EndpointURL {
        guard let separator = text.firstRange(of: "://") else {
            throw invalid(text, "it has no scheme")
        }
        let schemeText = text[..<separator.lowerBound].lowercased()
        guard let scheme = Scheme(rawValue: schemeText), schemes.contains(scheme) else {
            let allowed = schemes.map(\.rawValue).sorted().joined(separator: ", ")
            throw invalid(text, "the scheme \(schemeText) is not one of \(allowed)")
        }
        var rest = text[separator.upperBound...]
        if let fragment = rest.firstIndex(of: "#") {
            rest = rest[..<fragment]
        }
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        var requestTarget = String(rest[authorityEnd...])
        if requestTarget.isEmpty {
            requestTarget = "/"
        } else if requestTarget.hasPrefix("?") {
            requestTarget = "/" + requestTarget
        }
        guard !requestTarget.contains(where: { $0 == " " || $0.isNewline }) else {
            throw invalid(text, "the path contains white space")
        }
        if let at = authority.lastIndex(of: "@") {
            authority = authority[authority.index(after: at)...]
        }

        let host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else {
                throw invalid(text, "an IPv6 address lacks its closing bracket")
            }
            host = authority[authority.index(after: authority.startIndex) ..< close]
            let afterBracket = authority[authority.index(after: close)...]
            if !afterBracket.isEmpty {
                guard afterBracket.hasPrefix(":") else {
                    throw invalid(text, "unexpected characters after the IPv6 address")
                }
                portText = afterBracket.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            host = authority
        }
        guard !host.isEmpty else {
            throw invalid(text, "it has no host")
        }
        guard host.allSatisfy({ $0.isASCII && !$0.isWhitespace && $0 != "/" && $0 != "[" && $0 != "]" }) else {
            throw invalid(text, "the host contains characters a host name cannot have")
        }
        var port = scheme.defaultPort
        var explicitPort = false
        if let portText, !portText.isEmpty {
            guard portText.count <= 5, portText.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(portText),
                (1 ... 65535).contains(value)
            else {
                throw invalid(text, "the port \(portText) is not a number from 1 to 65535")
            }
            port = value
            explicitPort = value != scheme.defaultPort
        }
        let target = TransportTarget.host(String(host), port: port)
        var hostHeader: String
        if case .ipv6(let address, _) = target {
            hostHeader = "[\(address)]"
        } else {
            hostHeader = String(host)
        }
        if explicitPort {
            hostHeader += ":\(port)"
        }
        return EndpointURL(scheme: scheme, target: target, requestTarget: requestTarget, hostHeader: hostHeader)
    }

    private static func invalid(_ text: String, _ reason: String) -> TransportError {
        TransportError(code: .invalidTarget, message: "cannot use the URL \(text): \(reason)")
    }
}
