// swift-tools-version: 6.1
import PackageDescription

/// Settings shared by every target of the package: a small, explicit public surface.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "Wire",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "RpcWire", targets: ["RpcWire"]),
        .executable(name: "rpcwire", targets: ["RpcWireTool"]),
        .library(name: "RpcTesting", targets: ["RpcTesting"]),
    ],
    dependencies: [
        // Documentation only: `swift package generate-documentation` (a plugin, nothing linked).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin.git", from: "1.5.0"),
    ],
    targets: [
        .target(
            name: "RpcWire",
            swiftSettings: strictSettings,
            linkerSettings: [.linkedLibrary("m", .when(platforms: [.linux, .android]))]
        ),
        .executableTarget(
            name: "RpcWireTool",
            dependencies: ["RpcWire"],
            swiftSettings: strictSettings
        ),
        // Helpers for the tests of every layer: waiting for an observable condition. No
        // dependencies.
        .target(
            name: "RpcTesting",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "RpcTestingTests",
            dependencies: ["RpcTesting"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "RpcWireTests",
            dependencies: ["RpcWire", "RpcWireTool"],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
