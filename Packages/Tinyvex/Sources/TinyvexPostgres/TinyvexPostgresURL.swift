import Foundation
public import PostgresNIO

/// A PostgreSQL connection URL, `postgres://user[:password]@host[:port]/database[?sslmode=…]`
/// (or `postgresql://`), read into postgres-nio's connection configuration.
///
/// `sslmode` is `disable` (the default), `prefer` or `require`; `require` verifies the server's
/// certificate against the system's trust roots.
///
/// The actor server reads the same URLs with a reader of its own (Tinyvex does not depend on
/// the Actors package); both belong in a shared lower package once one holds PostgreSQL code.
public struct TinyvexPostgresURL: Sendable, Hashable {
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
    /// - Throws: ``TinyvexPostgresError`` naming what is wrong: another scheme, no host or user,
    ///   a port out of range, an unknown `sslmode`.
    public init(_ text: String) throws(TinyvexPostgresError) {
        guard let parts = URLComponents(string: text) else { throw TinyvexPostgresError("the PostgreSQL URL cannot be read") }
        guard let scheme = parts.scheme, ["postgres", "postgresql"].contains(scheme) else {
            throw TinyvexPostgresError("a PostgreSQL URL starts with postgres:// or postgresql://")
        }
        guard let host = parts.host, !host.isEmpty else { throw TinyvexPostgresError("the PostgreSQL URL has no host") }
        guard let user = parts.user, !user.isEmpty else { throw TinyvexPostgresError("the PostgreSQL URL has no user") }
        let port = parts.port ?? 5432
        guard (1...65_535).contains(port) else { throw TinyvexPostgresError("the port \(port) is not between 1 and 65535") }
        let mode = parts.queryItems?.first(where: { $0.name == "sslmode" })?.value ?? "disable"
        guard ["disable", "prefer", "require"].contains(mode) else {
            throw TinyvexPostgresError("sslmode must be disable, prefer or require, not \(mode)")
        }
        let path = parts.path.drop { $0 == "/" }
        self.host = host
        self.port = port
        self.username = user
        self.password = parts.password
        self.database = path.isEmpty ? nil : String(path)
        self.sslMode = mode
    }

    /// The connection configuration for this URL.
    ///
    /// - Throws: NIOSSL's error when the TLS context cannot be made.
    public func configuration() throws -> PostgresConnection.Configuration {
        let tls: PostgresConnection.Configuration.TLS
        switch sslMode {
        case "require": tls = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
        case "prefer": tls = .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
        default: tls = .disable
        }
        return PostgresConnection.Configuration(host: host, port: port, username: username, password: password, database: database, tls: tls)
    }
}
