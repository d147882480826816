// swift-tools-version: 6.1
import CompilerPluginSupport
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
        // Everything a user needs: the protocol core, its WebSocket and HTTP batch clients and
        // servers, and the wire and transport types their APIs use.
        .library(name: "CapnWeb", targets: ["CapnWeb"]),
        // The protocol core alone, for a custom transport: no SwiftNIO in its dependencies.
        .library(name: "CapnWebCore", targets: ["CapnWebCore"]),
        // For tests of code built on Cap'n Web: the above, the in-memory transport pair and the
        // waiting helpers.
        .library(name: "CapnWebTesting", targets: ["CapnWebTesting"]),
        // For conformance tests of a Cap'n Web server, wherever it is mounted: the reference wire
        // transcript, a raw-frame peer, the replay of the reference client's side, and the
        // conformance test API to serve.
        .library(name: "CapnWebConformance", targets: ["CapnWebConformance"]),
        // `import CapnWebMacros`: `CapnWeb` and the `@RpcProtocol`, `@Rpc` and `@RpcName` macros.
        // Only code that imports it builds swift-syntax.
        .library(name: "CapnWebMacros", targets: ["CapnWebMacros"]),
        .executable(name: "capnweb", targets: ["CapnWebTool"]),
        // The Prometheus `/metrics` endpoint and the commands' ServiceGroup, for the `serve`
        // commands; only this product builds swift-prometheus.
        .library(name: "CapnWebPrometheus", targets: ["CapnWebPrometheus"]),
        // `addCapnWeb` on a Vapor 4 application's routes; only this product builds Vapor.
        .library(name: "CapnWebVapor", targets: ["CapnWebVapor"]),
        // `addCapnWeb` on a Hummingbird 2 application's router; only this product builds Hummingbird.
        .library(name: "CapnWebHummingbird", targets: ["CapnWebHummingbird"]),
    ],
    dependencies: [
        .package(path: "../Transport"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swiftlang/swift-syntax.git", from: "603.0.1"),
        .package(url: "https://github.com/pointfreeco/swift-macro-testing.git", from: "0.7.0"),
        .package(url: "https://github.com/vapor/vapor.git", from: "4.122.3"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        // Documentation only: `swift package generate-documentation` (a plugin, nothing linked).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin.git", from: "1.5.0"),
    ],
    targets: [
        // The Cap'n Web protocol, both peers, over any `MessageTransport`: tables, pipelining,
        // refs, local targets, map, streams, sessions, reconnection and the HTTP batch adapters.
        // Built on the transport abstractions only (no SwiftNIO).
        .target(
            name: "CapnWebCore",
            dependencies: [
                .product(name: "RpcTransport", package: "Transport"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Instrumentation", package: "swift-distributed-tracing"),
            ],
            swiftSettings: strictSettings
        ),
        // Sessions over WebSocket and HTTP batch, and servers, on the SwiftNIO transports.
        .target(
            name: "CapnWebNIO",
            dependencies: [
                "CapnWebCore",
                .product(name: "RpcTransportNIO", package: "Transport"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Instrumentation", package: "swift-distributed-tracing"),
            ],
            swiftSettings: strictSettings
        ),
        // Cap'n Web sessions and batches on a Hummingbird application's router, behind its
        // middleware.
        .target(
            name: "CapnWebHummingbird",
            dependencies: [
                "CapnWebCore",
                "CapnWebNIO",
                .product(name: "RpcTransportHummingbird", package: "Transport"),
                .product(name: "RpcTransportNIO", package: "Transport"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            swiftSettings: strictSettings
        ),
        // Cap'n Web sessions and batches on a Vapor application's router, behind its middleware.
        .target(
            name: "CapnWebVapor",
            dependencies: [
                "CapnWebCore",
                "CapnWebNIO",
                .product(name: "RpcTransportVapor", package: "Transport"),
                .product(name: "RpcTransportNIO", package: "Transport"),
                .product(name: "Vapor", package: "vapor"),
            ],
            swiftSettings: strictSettings
        ),
        // `import CapnWeb`: the two modules above and the layers below, re-exported.
        .target(
            name: "CapnWeb",
            dependencies: [
                "CapnWebCore", "CapnWebNIO",
                // The in-memory transport pair, for sessions and clients kept in one process.
                .product(name: "RpcTransportInMemory", package: "Transport"),
            ],
            swiftSettings: strictSettings
        ),
        // `import CapnWebTesting`: `CapnWeb`, the in-memory transport and the waiting helpers,
        // re-exported.
        .target(
            name: "CapnWebTesting",
            dependencies: [
                "CapnWeb",
                .product(name: "RpcTransportTesting", package: "Transport"),
            ],
            swiftSettings: strictSettings
        ),
        // `import CapnWebConformance`: the reference wire transcript, `RawPeer`, the server-role
        // replay, and `CapnWebDemo`'s `TestAPI` re-exported. Over any `MessageTransport`, so the
        // engine's in-memory tests use it as the framework tests do over a socket.
        .target(
            name: "CapnWebConformance",
            dependencies: [
                "CapnWebDemo",
                .product(name: "RpcTransport", package: "Transport"),
                .product(name: "RpcTransportTesting", package: "Transport"),
            ],
            swiftSettings: strictSettings
        ),
        // The compiler plug-in that expands `@RpcProtocol`, `@Rpc` and `@RpcName`.
        .macro(
            name: "CapnWebMacrosPlugin",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxBuilder", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
                .product(name: "SwiftDiagnostics", package: "swift-syntax"),
            ],
            swiftSettings: strictSettings
        ),
        // `import CapnWebMacros`: the macros' declarations and the small runtime their
        // expansions use, with `CapnWeb` re-exported.
        .target(
            name: "CapnWebMacros",
            dependencies: ["CapnWeb", "CapnWebMacrosPlugin"],
            swiftSettings: strictSettings
        ),
        // The conformance test API (`TEST-API.md`) as a main object, shared by the command and
        // the tests; other packages' tests get it through `CapnWebConformance`.
        .target(
            name: "CapnWebDemo",
            dependencies: ["CapnWebCore"],
            swiftSettings: strictSettings
        ),
        // `import CapnWebPrometheus`: RpcTransportPrometheus re-exported, for the layers above.
        .target(
            name: "CapnWebPrometheus",
            dependencies: [
                .product(name: "RpcTransportPrometheus", package: "Transport"),
            ],
            swiftSettings: strictSettings
        ),
        // The `capnweb` command: `serve --demo` and `call`, as a library the tests import.
        .target(
            name: "CapnWebCLI",
            dependencies: [
                "CapnWeb",
                "CapnWebDemo",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "RpcTransportPrometheus", package: "Transport"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // The `capnweb` executable: only runs CapnWebCLI's command.
        .executableTarget(
            name: "CapnWebTool",
            dependencies: [
                "CapnWebCLI",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings
        ),
        // The harness every test that opens a session runs in: once the test's body has run, it
        // checks that every peer's tables settled, then closes them; and its in-memory setting
        // (a pair of sessions). Shared by the three test targets, without SwiftNIO; not a product.
        .target(
            name: "CapnWebTestSupport",
            dependencies: [
                "CapnWebCore",
                .product(name: "RpcTransportTesting", package: "Transport"),
            ],
            path: "Tests/Support/CapnWebTestSupport",
            swiftSettings: strictSettings
        ),
        // The same harness's WebSocket setting: a server on loopback and the client sessions a
        // test opens to it.
        .target(
            name: "CapnWebSocketTestSupport",
            dependencies: [
                "CapnWeb",
                "CapnWebTestSupport",
            ],
            path: "Tests/Support/CapnWebSocketTestSupport",
            swiftSettings: strictSettings
        ),
        // The engine's tests, over the in-memory transport alone.
        .testTarget(
            name: "CapnWebCoreTests",
            dependencies: [
                "CapnWebCore",
                "CapnWebConformance",
                "CapnWebDemo",
                "CapnWebTestSupport",
                .product(name: "RpcTransportTesting", package: "Transport"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CapnWebTests",
            dependencies: [
                "CapnWeb",
                "CapnWebCore",
                "CapnWebDemo",
                "CapnWebTestSupport",
                "CapnWebSocketTestSupport",
                "CapnWebCLI",
                .product(name: "RpcTransportTesting", package: "Transport"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings
        ),
        // The macros' expansions (snapshot tests) and typed sessions end to end.
        .testTarget(
            name: "CapnWebMacrosTests",
            dependencies: [
                "CapnWebMacros",
                "CapnWebMacrosPlugin",
                "CapnWebDemo",
                "CapnWebTesting",
                "CapnWebTestSupport",
                "CapnWebSocketTestSupport",
                .product(name: "MacroTesting", package: "swift-macro-testing"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacroExpansion", package: "swift-syntax"),
                .product(name: "SwiftSyntaxBuilder", package: "swift-syntax"),
            ],
            // Without `ExistentialAny`, so that the seed's spelling (`RpcSession<TodoAPI>`,
            // `var todos: TodoService { get async throws }`) compiles here as in an app.
            swiftSettings: [
                .enableUpcomingFeature("InternalImportsByDefault"),
                .enableUpcomingFeature("MemberImportVisibility"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
