// swift-tools-version: 6.1
import PackageDescription

/// Settings shared by every Swift target of the package: a small, explicit public surface.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "Tinyvex",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        // The client of seed 003: live queries as publishers and streams, mutations, actions.
        .library(name: "Tinyvex", targets: ["Tinyvex"]),
        // The embedded server: queries, mutations and actions over SQLite, with live queries.
        .library(name: "TinyvexServer", targets: ["TinyvexServer"]),
        // The wire vocabulary both ends share: method names, error codes, limits.
        .library(name: "TinyvexProtocol", targets: ["TinyvexProtocol"]),
        // The server's documents in PostgreSQL instead of SQLite (the one product that builds
        // postgres-nio).
        .library(name: "TinyvexPostgres", targets: ["TinyvexPostgres"]),
        // The Tinyvex endpoint on a Hummingbird 2 application's router; only this product builds
        // Hummingbird.
        .library(name: "TinyvexHummingbird", targets: ["TinyvexHummingbird"]),
        // `tinyvex serve --demo`: the server with the demo chat schema.
        .executable(name: "tinyvex", targets: ["TinyvexCommand"]),
        // The server's WebSocket endpoint on a Vapor 4 application's routes; only this product
        // builds Vapor.
        .library(name: "TinyvexVapor", targets: ["TinyvexVapor"]),
        // `make demo`'s Tinyvex step: two clients, one query, a mutation, a server restart.
        .executable(name: "tinyvex-demo", targets: ["TinyvexDemo"]),
    ],
    dependencies: [
        .package(path: "../Managed"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        .package(url: "https://github.com/OpenCombine/OpenCombine.git", from: "0.14.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/vapor/vapor.git", from: "4.122.3"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        // Documentation only: `swift package generate-documentation` (a plugin, nothing linked).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin.git", from: "1.5.0"),
    ],
    targets: [
        // Method names, error codes and parameter shapes of the protocol (docs/tinyvex-protocol.md).
        .target(
            name: "TinyvexProtocol",
            dependencies: [
                .product(name: "RpcDo", package: "Managed"),
            ],
            swiftSettings: strictSettings
        ),
        // The server: a document store in SQLite (GRDB), reactive query streams, the WebSocket
        // endpoint.
        .target(
            name: "TinyvexServer",
            dependencies: [
                "TinyvexProtocol",
                .product(name: "RpcDo", package: "Managed"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: strictSettings
        ),
        // The server's endpoint mounted on a Vapor application's router, behind its middleware.
        .target(
            name: "TinyvexVapor",
            dependencies: [
                "TinyvexServer",
                .product(name: "RpcDoVapor", package: "Managed"),
                .product(name: "Vapor", package: "vapor"),
            ],
            swiftSettings: strictSettings
        ),
        // The PostgreSQL connection behind `TinyvexDatabase.postgres`: a URL reader and the
        // driver's connections, opened and closed by one scope.
        // The Tinyvex endpoint mounted on a Hummingbird application's router, behind its
        // middleware, with an auth hook that sees the request.
        .target(
            name: "TinyvexHummingbird",
            dependencies: [
                "TinyvexServer",
                .product(name: "RpcDoHummingbird", package: "Managed"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "TinyvexPostgres",
            dependencies: [
                "TinyvexServer",
                "TinyvexProtocol",
                .product(name: "RpcDo", package: "Managed"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: strictSettings
        ),
        // The client: one reconnecting JSON-RPC channel, shared subscriptions, resume by seq.
        .target(
            name: "Tinyvex",
            dependencies: [
                "TinyvexProtocol",
                .product(name: "RpcDo", package: "Managed"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "OpenCombine", package: "OpenCombine", condition: .when(platforms: [.linux, .windows, .android, .wasi])),
                // `receive(on:)` a dispatch queue, where Combine is missing.
                .product(name: "OpenCombineDispatch", package: "OpenCombine", condition: .when(platforms: [.linux, .windows, .android, .wasi])),
                // The client as a `Service`.
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "TinyvexCommand",
            dependencies: [
                "TinyvexServer",
                "TinyvexPostgres",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "RpcDoPrometheus", package: "Managed"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "TinyvexDemo",
            dependencies: [
                "Tinyvex",
                "TinyvexServer",
                .product(name: "RpcDo", package: "Managed"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "TinyvexServerTests",
            dependencies: [
                "TinyvexServer",
                "TinyvexPostgres",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                "TinyvexProtocol",
                .product(name: "RpcDo", package: "Managed"),
                .product(name: "RpcDoTesting", package: "Managed"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "TinyvexTests",
            dependencies: [
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                "Tinyvex",
                "TinyvexServer",
                .product(name: "RpcDo", package: "Managed"),
                .product(name: "RpcDoTesting", package: "Managed"),
            ],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
