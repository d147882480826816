import PostgresNIO
import RpcTransportNIO

extension PostgresURL {
    /// The postgres-nio client configuration for this URL (`require` and `prefer` verify the
    /// server against the system's roots).
    var clientConfiguration: PostgresClient.Configuration {
        let tls: PostgresClient.Configuration.TLS =
            switch sslMode {
            case .require: .require(.makeClientConfiguration())
            case .prefer: .prefer(.makeClientConfiguration())
            case .disable: .disable
            }
        return PostgresClient.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: tls)
    }
}
