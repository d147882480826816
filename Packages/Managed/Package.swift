// swift-tools-version: 6.1
import PackageDescription

/// Settings shared by every Swift target of the package: a small, explicit public surface.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "Managed",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "RpcDo", targets: ["RpcDo"]),
        // The Prometheus `/metrics` endpoint and the commands' ServiceGroup, for the `serve`
        // commands above; only this product builds swift-prometheus.
        .library(name: "RpcDoPrometheus", targets: ["RpcDoPrometheus"]),
        // For tests of the packages above: the in-memory transport pair and the waiting helpers.
        .library(name: "RpcDoTesting", targets: ["RpcDoTesting"]),
        .executable(name: "rpcdo-demo", targets: ["RpcDoDemo"]),
        // Cap'n Web and the transport adapter on Vapor 4, for the packages above; only this
        // product builds Vapor.
        .library(name: "RpcDoVapor", targets: ["RpcDoVapor"]),
        // Cap'n Web and the transport adapter on Hummingbird 2, for the packages above; only this
        // product builds Hummingbird.
        .library(name: "RpcDoHummingbird", targets: ["RpcDoHummingbird"]),
    ],
    dependencies: [
        .package(path: "../Session"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        // Documentation only: `swift package generate-documentation` (a plugin, nothing linked).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin.git", from: "1.5.0"),
    ],
    targets: [
        // Managed connections (reconnect, backoff, heartbeat, offline queue, correlation,
        // timeouts, interceptors) and the RpcDo client on Cap'n Web.
        .target(
            name: "RpcDo",
            dependencies: [
                .product(name: "CapnWeb", package: "Session"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                // `RpcClient` as a `Service`.
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),
        // `import RpcDoHummingbird`: CapnWebHummingbird (and the Hummingbird transport adapter)
        // re-exported.
        .target(
            name: "RpcDoHummingbird",
            dependencies: [
                .product(name: "CapnWebHummingbird", package: "Session"),
            ],
            swiftSettings: strictSettings
        ),
        // `import RpcDoPrometheus`: CapnWebPrometheus (the metrics endpoint) re-exported.
        .target(
            name: "RpcDoPrometheus",
            dependencies: [
                .product(name: "CapnWebPrometheus", package: "Session"),
            ],
            swiftSettings: strictSettings
        ),
        // `import RpcDoVapor`: CapnWebVapor and the Vapor transport adapter, re-exported.
        .target(
            name: "RpcDoVapor",
            dependencies: [
                .product(name: "CapnWebVapor", package: "Session"),
            ],
            swiftSettings: strictSettings
        ),
        // `import RpcDoTesting`: what tests of packages built on RpcDo use from the layers below
        // (the in-memory transport pair with its fault injection, and `RpcTesting`'s waits), and
        // a JSON-RPC peer over in-memory pairs.
        .target(
            name: "RpcDoTesting",
            dependencies: [
                .product(name: "CapnWebTesting", package: "Session"),
            ],
            swiftSettings: strictSettings
        ),
        // The seed's Todo API as a Cap'n Web main object over an in-memory store: what the
        // demo, the seed-example tests and the fault tests serve. Internal to this package.
        .target(
            name: "RpcDoTodo",
            dependencies: [
                .product(name: "CapnWeb", package: "Session"),
            ],
            swiftSettings: strictSettings
        ),
        // `make demo`: an in-process Todo server on loopback and an RpcDo client, step by step.
        .executableTarget(
            name: "RpcDoDemo",
            dependencies: [
                "RpcDo",
                "RpcDoTodo",
                .product(name: "CapnWeb", package: "Session"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "RpcDoTests",
            dependencies: [
                "RpcDo",
                "RpcDoTodo",
                "RpcDoTesting",
                .product(name: "CapnWebTesting", package: "Session"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "RpcDoTodoTests",
            dependencies: [
                "RpcDo",
                "RpcDoTodo",
                .product(name: "CapnWebTesting", package: "Session"),
                // The typed client of the Todo API (`@RpcProtocol`).
                .product(name: "CapnWebMacros", package: "Session"),
            ],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
