import Foundation
import Testing
import TinyvexPostgres
@testable import TinyvexServer

/// The stores a store test runs against: SQLite always, PostgreSQL when a cluster is given.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }

    /// The kinds available here: PostgreSQL needs `RPC_POSTGRES_URL`.
    static var available: [StoreKind] {
        PostgresTestDatabase.isAvailable ? allCases : [.sqlite]
    }

    /// Runs `body` with a new, empty store of this kind that can be opened again (by one server
    /// at a time): an SQLite file in a folder of its own, or a PostgreSQL database of its own.
    func withStore<T>(_ body: (StoreLocation) async throws -> T) async throws -> T {
        switch self {
        case .sqlite:
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tinyvex-store-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            return try await body(.sqlite(folder.appendingPathComponent("store.sqlite").path))
        case .postgres:
            return try await PostgresTestDatabase.with { url in try await body(.postgres(url)) }
        }
    }
}

/// Where a test's store lives, to open it for a server.
enum StoreLocation: Sendable {
    case sqlite(String)
    case postgres(String)

    /// Opens the store and runs `body` with the database to serve from.
    func open<T>(_ body: (TinyvexDatabase) async throws -> T) async throws -> T {
        switch self {
        case .sqlite(let path):
            return try await body(.file(path))
        case .postgres(let url):
            return try await TinyvexPostgres.withDatabase(url: url) { database in try await body(database) }
        }
    }
}
