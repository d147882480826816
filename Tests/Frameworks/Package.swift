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
    ],
    targets: [
        // A real Vapor application with Cap'n Web, the RivetKit gateway and Tinyvex mounted
        // beside an ordinary route, behind its own authentication middleware.
        .testTarget(
            name: "VaporFrameworkTests",
            dependencies: [
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
    ],
    swiftLanguageModes: [.v6]
)
