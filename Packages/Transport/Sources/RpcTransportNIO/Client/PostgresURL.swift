public import RpcTransport

/// A PostgreSQL connection URL, `postgres://user[:password]@host[:port][/database][?sslmode=…]`
/// (or `postgresql://`), taken apart: what the stack's PostgreSQL stores (actors, Tinyvex) read
/// from one setting before they make their postgres-nio configuration.
///
/// The user name, password and database are percent-decoded (`%40` for `@`; `+` is itself).
/// `sslmode` is `disable` (the default), `prefer` or `require`.
///
/// ```swift
/// let url = try PostgresURL("postgres://ann:s%3Acret@db.example:6543/actors?sslmode=require")
/// // url.host == "db.example", url.port == 6543, url.password == "s:cret"
/// ```
public struct PostgresURL: Sendable, Hashable {
    /// How a connection uses TLS.
    public enum SSLMode: String, Sendable, Hashable {
        /// Never.
        case disable
        /// When the server offers it.
        case prefer
        /// Always, verifying the server's certificate against the system's roots.
        case require
    }

    /// The host name or address.
    public var host: String
    /// The port; 5432 when the URL names none.
    public var port: Int
    /// The user name.
    public var username: String
    /// The password, if any.
    public var password: String?
    /// The database; the user's default when the URL names none.
    public var database: String?
    /// How connections use TLS.
    public var sslMode: SSLMode

    /// Reads `text`.
    ///
    /// - Throws: ``TransportError`` with code `invalidTarget` naming what is wrong:
    ///   another scheme, no host or user, a port out of range, a malformed escape, an unknown
    ///   `sslmode`.
    public init(_ text: String) throws(TransportError) {
        let endpoint = try EndpointURL.parse(text, schemes: [.postgres, .postgresql])
        guard let port = endpoint.target.port else { throw Self.invalid("the URL names no host and port") }
        let host = endpoint.target.host
        // The user part: between `://` and the last `@` before the path.
        guard let separator = text.firstRange(of: "://") else { throw Self.invalid("the URL has no scheme") }
        let rest = text[separator.upperBound...]
        let authority = rest[..<(rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex)]
        guard let at = authority.lastIndex(of: "@") else { throw Self.invalid("the URL names no user") }
        let userInfo = authority[..<at]
        let colon = userInfo.firstIndex(of: ":")
        guard let username = HTTPQuery.decodeComponent(userInfo[..<(colon ?? userInfo.endIndex)]), !username.isEmpty else {
            throw Self.invalid("the URL names no user, or its user name is malformed")
        }
        var password: String?
        if let colon {
            guard let decoded = HTTPQuery.decodeComponent(userInfo[userInfo.index(after: colon)...]) else {
                throw Self.invalid("the password is malformed")
            }
            password = decoded
        }
        // The path names the database; the query may hold `sslmode`.
        let target = endpoint.requestTarget
        let path = target[..<(target.firstIndex(of: "?") ?? target.endIndex)].drop { $0 == "/" }
        guard let database = HTTPQuery.decodeComponent(path) else { throw Self.invalid("the database name is malformed") }
        var sslMode = SSLMode.disable
        if let mode = HTTPQuery.items(of: HTTPQuery.query(of: target)).last(where: { $0.name == "sslmode" })?.value {
            guard let known = SSLMode(rawValue: mode) else {
                throw Self.invalid("sslmode \(mode) is not disable, prefer or require")
            }
            sslMode = known
        }
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.database = database.isEmpty ? nil : database
        self.sslMode = sslMode
    }

    private static func invalid(_ why: String) -> TransportError {
        TransportError(code: .invalidTarget, message: "the PostgreSQL URL cannot be used: \(why)")
    }
}
