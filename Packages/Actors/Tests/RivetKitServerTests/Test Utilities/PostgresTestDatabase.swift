import Foundation
import Logging
import PostgresNIO
@testable import RivetKitPostgres
import RpcTransportNIO

/// A database of its own for one test, in the PostgreSQL cluster `RPC_POSTGRES_URL` names
/// (`make test-all` starts a throwaway one; so does `Scripts/with-postgres.sh`): made before the
/// test, dropped after it, so tests running at once never see each other's rows.
enum PostgresTestDatabase {
    /// The variable naming the cluster.
    static let variable = "RPC_POSTGRES_URL"

    /// The cluster's URL; `nil` when the variable is not set.
    static var clusterURL: String? {
        ProcessInfo.processInfo.environment[variable].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// No cluster was given.
    struct MissingCluster: Error, CustomStringConvertible {
        var description: String { "RPC_POSTGRES_URL is not set" }
    }

    /// Whether a cluster is given.
    static var isAvailable: Bool { clusterURL != nil }

    /// Makes a new database, runs `body` with its URL, and drops it afterwards.
    static func with<T: Sendable>(_ body: (String) async throws -> T) async throws -> T {
        guard let clusterURL, let base = URLComponents(string: clusterURL) else {
            throw MissingCluster()
        }
        let name = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try await admin(clusterURL) { client in
            try await client.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"))
        }
        var components = base
        components.path = "/" + name
        let outcome: Result<T, any Error>
        do {
            outcome = .success(try await body(components.string ?? clusterURL))
        } catch {
            outcome = .failure(error)
        }
        try await admin(clusterURL) { client in
            try await client.query(PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(name) WITH (FORCE)"))
        }
        return try outcome.get()
    }

    private static func admin(_ url: String, _ body: (PostgresClient) async throws -> Void) async throws {
        let client = PostgresClient(configuration: try PostgresURL(url).clientConfiguration)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            try await body(client)
        }
    }
}
