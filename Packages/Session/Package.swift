// swift-tools-version: 6.1
import PackageDescription

/// Settings shared by every Swift target of the package: a small, explicit public surface.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "Session",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "CapnWeb", targets: ["CapnWeb"]),
        .library(name: "CapnWebDemo", targets: ["CapnWebDemo"]),
        .executable(name: "capnweb", targets: ["CapnWebTool"]),
    ],
    dependencies: [
        .package(path: "../Transport"),
        .package(path: "../Wire"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
    ],
    targets: [
        // The Cap'n Web protocol, both peers: tables, pipelining, refs, local targets, map,
        // streams, WebSocket sessions and HTTP batch.
        .target(
            name: "CapnWeb",
            dependencies: [
                .product(name: "RpcWire", package: "Wire"),
                .product(name: "RpcTransport", package: "Transport"),
                .product(name: "RpcTransportNIO", package: "Transport"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // The conformance test API (`TEST-API.md`) as a main object, shared by the command,
        // the tests and the benchmarks.
        .target(
            name: "CapnWebDemo",
            dependencies: ["CapnWeb"],
            swiftSettings: strictSettings
        ),
        // The `capnweb` command: `serve --demo` and `call`.
        .executableTarget(
            name: "CapnWebTool",
            dependencies: [
                "CapnWeb",
                "CapnWebDemo",
                .product(name: "RpcWire", package: "Wire"),
                .product(name: "RpcTransportNIO", package: "Transport"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CapnWebTests",
            dependencies: [
                "CapnWeb",
                "CapnWebDemo",
                "CapnWebTool",
                .product(name: "RpcWire", package: "Wire"),
                .product(name: "RpcTransport", package: "Transport"),
                .product(name: "RpcTransportInMemory", package: "Transport"),
                .product(name: "RpcTransportNIO", package: "Transport"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "RpcTesting", package: "Wire"),
            ],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
