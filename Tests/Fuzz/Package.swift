// swift-tools-version: 6.1
import PackageDescription

/// Settings shared by every target: the same strictness as the layer packages.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

/// The fuzz executables find libFuzzer's driver at run time by name; on Linux an executable
/// only exposes the symbols it is told to.
let fuzzLinkerSettings: [LinkerSetting] = [
    .unsafeFlags(["-Xlinker", "--export-dynamic-symbol=LLVMFuzzerRunDriver"], .when(platforms: [.linux])),
]

let package = Package(
    name: "Fuzz",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    dependencies: [
        .package(path: "../../Packages/Wire"),
        .package(path: "../../Packages/Transport"),
        .package(path: "../../Packages/Session"),
    ],
    targets: [
        // Entry point shared by the fuzz executables, and the checks they have in common.
        .target(
            name: "FuzzSupport",
            dependencies: [.product(name: "RpcWire", package: "Wire")],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "FuzzJSONParser",
            dependencies: ["FuzzSupport"],
            swiftSettings: strictSettings,
            linkerSettings: fuzzLinkerSettings
        ),
        .executableTarget(
            name: "FuzzCapnWebDecoder",
            dependencies: ["FuzzSupport"],
            swiftSettings: strictSettings,
            linkerSettings: fuzzLinkerSettings
        ),
        // A server session fed the input's frames over an in-memory pair; spans the Wire,
        // Transport and Session layers.
        .executableTarget(
            name: "FuzzCapnWebSession",
            dependencies: [
                "FuzzSupport",
                .product(name: "RpcWire", package: "Wire"),
                .product(name: "RpcTransport", package: "Transport"),
                .product(name: "RpcTransportInMemory", package: "Transport"),
                .product(name: "CapnWebCore", package: "Session"),
            ],
            swiftSettings: strictSettings,
            linkerSettings: fuzzLinkerSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
