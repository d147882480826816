import Foundation
public import PostgresNIO

/// A PostgreSQL connection URL, `postgres://user[:password]@host[:port]/database[?sslmode=…]`
/// (or `postgresql://`), read into postgres-nio's client configuration.
///
/// `sslmode` is `disable` (the default), `prefer` or `require`; `require` verifies the server's
/// certificate against the system's trust roots.
public struct PostgresURL: Sendable, Hashable {
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
    /// The TLS mode: `disable`, `prefer` or `require`.
    public var sslMode: String

    /// Reads `text`.
    ///
    /// - Throws: ``PostgresStoreError`` naming what is wrong: another scheme, no host or user, a port
    ///   out of range, an unknown `sslmode`.
    public init(_ text: String) throws(PostgresStoreError) {
        guard let components = URLComponents(string: text) else { throw PostgresStoreError("\(text) is not a URL") }
        guard components.scheme == "postgres" || components.scheme == "postgresql" else {
            throw PostgresStoreError("a PostgreSQL URL begins postgres:// or postgresql://")
        }
        guard let host = components.host, !host.isEmpty else { throw PostgresStoreError("the URL names no host") }
        guard let user = components.user, !user.isEmpty else { throw PostgresStoreError("the URL names no user") }
        let port = components.port ?? 5432
        guard (1 ... 65_535).contains(port) else { throw PostgresStoreError("the port \(port) is out of range") }
        let database = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        let sslMode = components.queryItems?.first { $0.name == "sslmode" }?.value ?? "disable"
        guard ["disable", "prefer", "require"].contains(sslMode) else {
            throw PostgresStoreError("sslmode \(sslMode) is not disable, prefer or require")
        }
        self.host = host
        self.port = port
        self.username = user
        self.password = components.password
        self.database = database.isEmpty ? nil : database
        self.sslMode = sslMode
    }

    /// The client configuration for this URL.
    public var configuration: PostgresClient.Configuration {
        let tls: PostgresClient.Configuration.TLS =
            switch sslMode {
            case "require": .require(.makeClientConfiguration())
            case "prefer": .prefer(.makeClientConfiguration())
            default: .disable
            }
        return PostgresClient.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: tls)
    }
}

/// A PostgreSQL store that cannot be used, and why: a URL that cannot be read, or a database
/// another server serves already.
public struct PostgresStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong.
    public var description: String

    init(_ description: String) {
        self.description = description
    }
}
