// swift-tools-version: 6.1
import PackageDescription

/// Settings shared by every Swift target of the package: a small, explicit public surface.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "Actors",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "RivetKit", targets: ["RivetKit"]),
    ],
    dependencies: [
        .package(path: "../Managed"),
    ],
    targets: [
        // RivetKit's wire protocol (JSON encoding) and, on it, the actor client of seed 002.
        .target(
            name: "RivetKit",
            dependencies: [
                .product(name: "RpcDo", package: "Managed"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "RivetKitTests",
            dependencies: [
                "RivetKit",
                .product(name: "RpcDo", package: "Managed"),
            ],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
