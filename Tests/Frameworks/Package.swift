// swift-tools-version: 6.1
import PackageDescription

/// Settings shared by every target: the same strictness as the layer packages.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "Frameworks",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    dependencies: [
        .package(path: "../../Packages/Wire"),
        .package(path: "../../Packages/Transport"),
        .package(path: "../../Packages/Session"),
        .package(path: "../../Packages/Actors"),
        .package(path: "../../Packages/Tinyvex"),
        .package(url: "https://github.com/vapor/vapor.git", from: "4.122.3"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
    ],
    targets: [
        // The reference client's side of the Cap'n Web wire transcript, sent to an endpoint
        // mounted on an application, over our WebSocket and HTTP clients. Shared by both
        // frameworks' tests.
        .target(
            name: "MountConformance",
            dependencies: [
                .product(name: "CapnWebConformance", package: "Session"),
                .product(name: "RpcTransport", package: "Transport"),
                .product(name: "RpcTransportNIO", package: "Transport"),
            ],
            path: "Tests/Support/MountConformance",
            swiftSettings: strictSettings
        ),
        // A real Vapor application with Cap'n Web, the RivetKit gateway and Tinyvex mounted
        // beside an ordinary route, behind its own authentication middleware.
        .testTarget(
            name: "VaporFrameworkTests",
            dependencies: [
                "MountConformance",
                .product(name: "CapnWebConformance", package: "Session"),
                .product(name: "RpcTesting", package: "Wire"),
                .product(name: "RpcTransportNIO", package: "Transport"),
                .product(name: "CapnWeb", package: "Session"),
                .product(name: "CapnWebVapor", package: "Session"),
                .product(name: "RivetKit", package: "Actors"),
                .product(name: "RivetKitServer", package: "Actors"),
                .product(name: "RivetKitVapor", package: "Actors"),
                .product(name: "Tinyvex", package: "Tinyvex"),
                .product(name: "TinyvexServer", package: "Tinyvex"),
                .product(name: "TinyvexVapor", package: "Tinyvex"),
                .product(name: "Vapor", package: "vapor"),
            ],
            swiftSettings: strictSettings
        ),
        // Cap'n Web, the RivetKit gateway and Tinyvex mounted on one Hummingbird application
        // beside an ordinary route and an auth middleware, driven by our clients over loopback.
        .testTarget(
            name: "HummingbirdMountTests",
            dependencies: [
                "MountConformance",
                .product(name: "CapnWebConformance", package: "Session"),
                .product(name: "RpcTesting", package: "Wire"),
                .product(name: "RpcWire", package: "Wire"),
                .product(name: "RpcTransportNIO", package: "Transport"),
                .product(name: "CapnWeb", package: "Session"),
                .product(name: "CapnWebHummingbird", package: "Session"),
                .product(name: "RivetKit", package: "Actors"),
                .product(name: "RivetKitServer", package: "Actors"),
                .product(name: "RivetKitHummingbird", package: "Actors"),
                .product(name: "Tinyvex", package: "Tinyvex"),
                .product(name: "TinyvexServer", package: "Tinyvex"),
                .product(name: "TinyvexHummingbird", package: "Tinyvex"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "RpcTransportHummingbird", package: "Transport"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
