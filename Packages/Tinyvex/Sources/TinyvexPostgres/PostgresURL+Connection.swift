public import PostgresNIO
public import RpcTransportNIO

extension PostgresURL {
    /// The postgres-nio connection configuration for this URL (`require` and `prefer` verify the
    /// server against the system's roots).
    ///
    /// - Throws: NIOSSL's error when the TLS context cannot be made.
    public func connectionConfiguration() throws -> PostgresConnection.Configuration {
        let tls: PostgresConnection.Configuration.TLS =
            switch sslMode {
            case .require: .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
            case .prefer: .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
            case .disable: .disable
            }
        return PostgresConnection.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: tls)
    }
}
