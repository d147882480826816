// swift-tools-version: 6.1
import PackageDescription

/// Settings shared by every target: the same strictness as the layer packages.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "Interop",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    dependencies: [
        .package(path: "../../Packages/Transport"),
        .package(path: "../../Packages/Wire"),
        // The actor server, for RivetKit's own TypeScript client (see Peers/).
        .package(path: "../../Packages/Actors"),
    ],
    targets: [
        // The Transport layer against an independent WebSocket implementation (the Python
        // `websockets` package, see Peers/), both ways, in plaintext and over TLS; and the
        // actor server against RivetKit's own client, where it is installed.
        .testTarget(
            name: "InteropTests",
            dependencies: [
                .product(name: "RpcTransport", package: "Transport"),
                .product(name: "RpcTransportNIO", package: "Transport"),
                // The repository's one certificate fixture, for the TLS tests.
                .product(name: "RpcTransportTesting", package: "Transport"),
                .product(name: "RpcTesting", package: "Wire"),
                .product(name: "RivetKitServer", package: "Actors"),
            ],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
