import Foundation
import Logging
import PostgresNIO
import RpcTransportNIO
import TinyvexPostgres

/// A database of its own for one test in the PostgreSQL cluster `RPC_POSTGRES_URL` names
/// (`make test-postgres` and `make test-all` start a throwaway one): created before the test and
/// dropped after it, so tests running at once never share rows.
enum PostgresTestDatabase {
    /// The cluster's URL; `nil` when `RPC_POSTGRES_URL` is not set.
    static var clusterURL: String? {
        ProcessInfo.processInfo.environment["RPC_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Whether a cluster is given.
    static var isAvailable: Bool { clusterURL != nil }

    /// The test run asked for a cluster and has none.
    struct NoCluster: Error, CustomStringConvertible {
        var description: String { "RPC_POSTGRES_URL is not set" }
    }

    /// Creates a database, runs `body` with its URL, and drops the database afterwards.
    static func with<T>(_ body: (String) async throws -> T) async throws -> T {
        guard let clusterURL, var url = URLComponents(string: clusterURL) else { throw NoCluster() }
        let name = "tvx_" + UUID().uuidString.lowercased().filter { $0 != "-" }
        try await administer(clusterURL, "CREATE DATABASE \(name)")
        url.path = "/" + name
        let outcome: Result<T, any Error>
        do {
            outcome = .success(try await body(url.string ?? clusterURL))
        } catch {
            outcome = .failure(error)
        }
        try await administer(clusterURL, "DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
        return try outcome.get()
    }

    /// Runs one statement on the cluster's own database.
    static func administer(_ url: String, _ sql: String) async throws {
        try await query(url, sql)
    }

    /// Runs one statement on the database `url` names and returns its rows' first columns as text.
    @discardableResult
    static func query(_ url: String, _ sql: String) async throws -> [String] {
        let logger = Logger(label: "tinyvex.tests.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
        let connection = try await PostgresConnection.connect(configuration: try PostgresURL(url).connectionConfiguration(), id: 9, logger: logger)
        let outcome: Result<[String], any Error>
        do {
            var values: [String] = []
            for try await row in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger) {
                values.append(try row.first.map { try $0.decode(String.self) } ?? "")
            }
            outcome = .success(values)
        } catch {
            outcome = .failure(error)
        }
        try? await connection.close()
        return try outcome.get()
    }
}
