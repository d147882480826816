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
        .package(path: "../../Packages/Actors"),
        .package(path: "../../Packages/Tinyvex"),
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
        // RivetKit's JSON frames as the actor server and the client read them, and the HTTP
        // action bodies.
        .executableTarget(
            name: "FuzzRivetFrames",
            dependencies: ["FuzzSupport", .product(name: "RivetKit", package: "Actors")],
            swiftSettings: strictSettings,
            linkerSettings: fuzzLinkerSettings
        ),
        // The CBOR of actor creation inputs.
        .executableTarget(
            name: "FuzzRivetCBOR",
            dependencies: ["FuzzSupport", .product(name: "RivetKit", package: "Actors")],
            swiftSettings: strictSettings,
            linkerSettings: fuzzLinkerSettings
        ),
        // RivetKit's JSON compat forms (`["$BigInt","n"]` and the like).
        .executableTarget(
            name: "FuzzRivetJSONCompat",
            dependencies: [
                "FuzzSupport",
                .product(name: "RivetKit", package: "Actors"),
                .product(name: "RpcWire", package: "Wire"),
            ],
            swiftSettings: strictSettings,
            linkerSettings: fuzzLinkerSettings
        ),
        // Actor keys in their one-string and query-gateway forms.
        .executableTarget(
            name: "FuzzActorKey",
            dependencies: ["FuzzSupport", .product(name: "RivetKit", package: "Actors")],
            swiftSettings: strictSettings,
            linkerSettings: fuzzLinkerSettings
        ),
        // A Tinyvex server connection fed the input's JSON-RPC frames over an in-memory pair.
        .executableTarget(
            name: "FuzzTinyvexMessages",
            dependencies: [
                "FuzzSupport",
                .product(name: "TinyvexServer", package: "Tinyvex"),
                .product(name: "RpcTransport", package: "Transport"),
                .product(name: "RpcTransportInMemory", package: "Transport"),
            ],
            swiftSettings: strictSettings,
            linkerSettings: fuzzLinkerSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
