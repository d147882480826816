// swift-tools-version: 6.1
import PackageDescription

/// Settings shared by every target: the same strictness as the layer packages.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "TinyvexBenchmarks",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    dependencies: [
        .package(path: "../../Packages/Tinyvex"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
    ],
    targets: [
        // `make bench-tinyvex`: mutations per second with 100 live subscriptions, and the fan-out
        // of one mutation to 1,000 subscribed connections against a bare SQLite write plus a
        // bare WebSocket broadcast to the same connections, on loopback in one process.
        .executableTarget(
            name: "TinyvexBenchmarks",
            dependencies: [
                .product(name: "TinyvexServer", package: "Tinyvex"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
