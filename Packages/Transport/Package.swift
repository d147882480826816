// swift-tools-version: 6.1
import PackageDescription

/// Settings shared by every Swift target of the package: a small, explicit public surface.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "Transport",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "RpcTransport", targets: ["RpcTransport"]),
        .library(name: "RpcTransportInMemory", targets: ["RpcTransportInMemory"]),
        .library(name: "RpcTransportNIO", targets: ["RpcTransportNIO"]),
        // Vapor 4 routes that hand their WebSockets and requests to our transports; only this
        // product builds Vapor.
        .library(name: "RpcTransportVapor", targets: ["RpcTransportVapor"]),
        // Hummingbird 2 routes that hand their WebSockets and requests to our transports; only this
        // product builds Hummingbird.
        .library(name: "RpcTransportHummingbird", targets: ["RpcTransportHummingbird"]),
        // A Prometheus `/metrics` endpoint on our HTTP server, for the commands; only this product
        // builds swift-prometheus.
        .library(name: "RpcTransportPrometheus", targets: ["RpcTransportPrometheus"]),
        // For tests of code built on the transports: the in-memory pair, the waiting helpers and
        // the certificate fixture.
        .library(name: "RpcTransportTesting", targets: ["RpcTransportTesting"]),
    ],
    dependencies: [
        .package(path: "../Wire"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.6.0"),
        .package(url: "https://github.com/vapor/vapor.git", from: "4.122.3"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        // Documentation only: `swift package generate-documentation` (a plugin, nothing linked).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin.git", from: "1.5.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
    ],
    targets: [
        // The abstraction: message and batch transports, errors, states, the reconnecting
        // connection and its keepalive scheduler, the task set, the timeout race and the
        // deadline timer (on swift-collections' heap). No NIO.
        .target(
            name: "RpcTransport",
            dependencies: [
                .product(name: "RpcWire", package: "Wire"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HeapModule", package: "swift-collections"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Instrumentation", package: "swift-distributed-tracing"),
            ],
            swiftSettings: strictSettings
        ),
        // Serves the process's metrics as Prometheus text at `GET /metrics` on a TransportServer.
        .target(
            name: "RpcTransportPrometheus",
            dependencies: [
                "RpcTransport",
                "RpcTransportNIO",
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // A connected pair of transports in one process, with fault injection, for tests.
        .target(
            name: "RpcTransportInMemory",
            dependencies: ["RpcTransport"],
            swiftSettings: strictSettings
        ),
        // WebSocket and HTTP batch over SwiftNIO, TLS through OpenSSL, compression through zlib.
        .target(
            name: "RpcTransportNIO",
            dependencies: [
                "RpcTransport",
                "CRpcOpenSSL",
                "CRpcZlib",
                .product(name: "RpcWire", package: "Wire"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Instrumentation", package: "swift-distributed-tracing"),
            ],
            swiftSettings: strictSettings
        ),
        // The adapter between Hummingbird 2's routes and our transports: a server whose
        // WebSocket upgrades go through the application's router and become our
        // WebSocketTransport, and a route's Request and Response as our HTTP request and
        // response. Nothing else depends on Hummingbird.
        .target(
            name: "RpcTransportHummingbird",
            dependencies: [
                "RpcTransport",
                "RpcTransportNIO",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
            ],
            swiftSettings: strictSettings
        ),
        // The adapter between Vapor 4's routes and our transports: a route's WebSocket upgrade
        // becomes a WebSocketTransport, its Request and Response our HTTP request and response.
        // Nothing else depends on Vapor.
        .target(
            name: "RpcTransportVapor",
            dependencies: [
                "RpcTransport",
                "RpcTransportNIO",
                .product(name: "Vapor", package: "vapor"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        // `import RpcTransportTesting`: the in-memory transport and `RpcTesting`, re-exported, the
        // tests' one time limit, the repository's one certificate fixture (a test PKI), and the
        // one way a test runs a command as a child process. No SwiftNIO.
        .target(
            name: "RpcTransportTesting",
            dependencies: [
                "RpcTransport",
                "RpcTransportInMemory",
                .product(name: "RpcTesting", package: "Wire"),
            ],
            swiftSettings: strictSettings
        ),
        .systemLibrary(
            name: "CRpcOpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]
        ),
        .systemLibrary(
            name: "CRpcZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        .testTarget(
            name: "RpcTransportTests",
            dependencies: [
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                "RpcTransport",
                "RpcTransportInMemory",
                "RpcTransportTesting",
                .product(name: "RpcTesting", package: "Wire"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "RpcTransportHummingbirdTests",
            dependencies: [
                "RpcTransportHummingbird",
                "RpcTransportNIO",
                "RpcTransport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "RpcTesting", package: "Wire"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "RpcTransportVaporTests",
            dependencies: [
                "RpcTransportVapor",
                "RpcTransportNIO",
                "RpcTransport",
                .product(name: "Vapor", package: "vapor"),
                .product(name: "RpcTesting", package: "Wire"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "RpcTransportNIOTests",
            dependencies: [
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                "RpcTransportNIO",
                "RpcTransport",
                "CRpcOpenSSL",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                "RpcTransportTesting",
                .product(name: "RpcTesting", package: "Wire"),
            ],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
