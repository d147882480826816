// swift-tools-version: 6.1
import PackageDescription

/// Settings shared by every target: the same strictness as the layer packages.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "Benchmarks",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    dependencies: [
        .package(path: "../../Packages/Wire"),
    ],
    targets: [
        // Timing loop, statistics and report formatting shared by every benchmark executable.
        .target(
            name: "BenchmarkSupport",
            swiftSettings: strictSettings
        ),
        // The Wire layer against Foundation's JSON: parse, serialize, typed decode, Cap'n Web.
        .executableTarget(
            name: "WireBenchmarks",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "RpcWire", package: "Wire"),
            ],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
