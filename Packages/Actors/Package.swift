// swift-tools-version: 6.1
import PackageDescription

/// Settings shared by every Swift target of the package: a small, explicit public surface.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "Actors",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "RivetKit", targets: ["RivetKit"]),
        .library(name: "RivetKitServer", targets: ["RivetKitServer"]),
        // Actor records, state and schedules in PostgreSQL. Only code that uses it builds
        // postgres-nio.
        .library(name: "RivetKitPostgres", targets: ["RivetKitPostgres"]),
        .executable(name: "rivetkit", targets: ["RivetKitCLI"]),
        // Every route of `rivetkit serve` on a Vapor 4 application's routes; only this product
        // builds Vapor.
        .library(name: "RivetKitVapor", targets: ["RivetKitVapor"]),
        // Every route of `rivetkit serve` on a Hummingbird 2 application's router; only this
        // product builds Hummingbird.
        .library(name: "RivetKitHummingbird", targets: ["RivetKitHummingbird"]),
        .executable(name: "rivetkit-demo", targets: ["RivetKitDemo"]),
    ],
    dependencies: [
        .package(path: "../Managed"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/OpenCombine/OpenCombine.git", from: "0.14.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/vapor/vapor.git", from: "4.122.3"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        // Documentation only: `swift package generate-documentation` (a plugin, nothing linked).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin.git", from: "1.5.0"),
    ],
    targets: [
        // RivetKit's wire protocol (JSON encoding) and, on it, the actor client of seed 002.
        .target(
            name: "RivetKit",
            dependencies: [
                .product(name: "RpcDo", package: "Managed"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                // `ObservableObject` and `@Published` where Combine does not exist.
                .product(
                    name: "OpenCombine", package: "OpenCombine",
                    condition: .when(platforms: [.linux, .windows, .android, .wasi])),
                // The client and its connections as `Service`s.
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),
        // The actor server: actor types defined in Swift, RivetKit's HTTP surface and gateway
        // WebSocket on the Transport layer's server, state in SQLite through GRDB.
        .target(
            name: "RivetKitServer",
            dependencies: [
                "RivetKit",
                .product(name: "RpcDo", package: "Managed"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),
        // The actor gateway mounted on a Hummingbird application's router, behind its middleware.
        .target(
            name: "RivetKitHummingbird",
            dependencies: [
                "RivetKitServer",
                .product(name: "RpcDoHummingbird", package: "Managed"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            swiftSettings: strictSettings
        ),
        // The actor gateway mounted on a Vapor application's router, behind its middleware.
        .target(
            name: "RivetKitVapor",
            dependencies: [
                "RivetKitServer",
                .product(name: "RpcDoVapor", package: "Managed"),
                .product(name: "Vapor", package: "vapor"),
            ],
            swiftSettings: strictSettings
        ),
        // The actor server's store in PostgreSQL, through postgres-nio.
        .target(
            name: "RivetKitPostgres",
            dependencies: [
                "RivetKitServer",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // `rivetkit serve --demo`.
        .executableTarget(
            name: "RivetKitCLI",
            dependencies: [
                "RivetKitServer",
                "RivetKitPostgres",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "RpcDoPrometheus", package: "Managed"),
            ],
            swiftSettings: strictSettings
        ),
        // `make demo`'s Actors step.
        .executableTarget(
            name: "RivetKitDemo",
            dependencies: [
                "RivetKit",
                "RivetKitServer",
                // The stack's one wait for a condition.
                .product(name: "RpcDoTesting", package: "Managed"),
            ],
            swiftSettings: strictSettings
        ),
        // The protocol codec against the transcripts, the server, and the client against it.
        .testTarget(
            name: "RivetKitServerTests",
            dependencies: [
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                "RivetKit",
                "RivetKitServer",
                "RivetKitPostgres",
                // Poisoning a store file the way another program could.
                .product(name: "GRDB", package: "GRDB.swift"),
                // The in-memory transport pair the client reaches the server through in
                // process, and the waits for a condition.
                .product(name: "RpcDoTesting", package: "Managed"),
            ],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
