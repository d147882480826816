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
        .package(path: "../../Packages/Transport"),
        .package(path: "../../Packages/Session"),
        .package(path: "../../Packages/Actors"),
        .package(path: "../../Packages/Tinyvex"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    ],
    targets: [
        // Timing loop, statistics and report formatting shared by every benchmark executable.
        .target(
            name: "BenchmarkSupport",
            swiftSettings: strictSettings
        ),
        // What the loopback benchmarks share: the bare SwiftNIO WebSocket echo server and client
        // (the floor they compare against), server processes, round-trip figures.
        .target(
            name: "LoopbackSupport",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "RpcTransportNIO", package: "Transport"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ],
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
        // The Transport layer's WebSocket against a bare SwiftNIO WebSocket echo: round-trip
        // latency and pipelined throughput, one process per side, on loopback.
        .executableTarget(
            name: "TransportBenchmarks",
            dependencies: [
                "BenchmarkSupport",
                "LoopbackSupport",
                .product(name: "RpcTransport", package: "Transport"),
                .product(name: "RpcTransportNIO", package: "Transport"),
                // The repository's certificate fixture, for the TLS variants.
                .product(name: "RpcTransportTesting", package: "Transport"),
            ],
            swiftSettings: strictSettings
        ),
        // Cap'n Web sessions against a bare SwiftNIO WebSocket echo: call latency, calls per
        // second with 64 in flight and pipelining, one process per side, on loopback; and the
        // same `square` served by an `@Rpc` object instead of a hand-written target.
        .executableTarget(
            name: "SessionBenchmarks",
            dependencies: [
                "BenchmarkSupport",
                "LoopbackSupport",
                .product(name: "CapnWeb", package: "Session"),
                .product(name: "CapnWebMacros", package: "Session"),
                .product(name: "RpcTransportNIO", package: "Transport"),
            ],
            swiftSettings: strictSettings
        ),
        // The actor server and client on loopback against the Session layer's calls: actions per
        // second (sequential and 64 in flight) and a broadcast to 1,000 connections.
        .executableTarget(
            name: "ActorsBenchmarks",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "RivetKit", package: "Actors"),
                .product(name: "RivetKitServer", package: "Actors"),
                .product(name: "RivetKitPostgres", package: "Actors"),
                .product(name: "CapnWeb", package: "Session"),
                .product(name: "RpcTransportNIO", package: "Transport"),
            ],
            swiftSettings: strictSettings
        ),
        // `make bench-tinyvex`: mutations per second with 100 live subscriptions, and the fan-out
        // of one mutation to 1,000 subscribed connections against a bare SQLite write plus a
        // bare WebSocket broadcast to the same connections, on loopback in one process.
        .executableTarget(
            name: "TinyvexBenchmarks",
            dependencies: [
                .product(name: "TinyvexServer", package: "Tinyvex"),
                .product(name: "TinyvexPostgres", package: "Tinyvex"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
