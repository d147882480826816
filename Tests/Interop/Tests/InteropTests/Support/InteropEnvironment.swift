import Foundation

/// Where the interop tests find their Python peer: the interpreter of the virtual environment
/// the bootstrap script makes, and the peer script beside this package.
enum InteropEnvironment {
    /// The interpreter is missing or cannot run the peer.
    struct Unavailable: Error, CustomStringConvertible {
        var description: String
    }

    /// The environment variable that names the interpreter, overriding the default.
    static let interpreterVariable = "RPC_INTEROP_PYTHON"

    /// The folder of this package (the one holding `Package.swift` and `Peers/`).
    static let packageDirectory: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // InteropTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    /// The root of the repository.
    static let repositoryRoot: URL = packageDirectory
        .deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The peer script.
    static var peerScript: String {
        packageDirectory.appendingPathComponent("Peers/ws_peer.py").path
    }

    /// The Python interpreter that has the pinned `websockets` package.
    ///
    /// - Throws: ``Unavailable``, saying how to install it, when there is none.
    static func interpreter() throws -> String {
        let environment = ProcessInfo.processInfo.environment
        let path: String
        if let configured = environment[interpreterVariable], !configured.isEmpty {
            path = configured
        } else {
            path = repositoryRoot.appendingPathComponent(".venv-interop/bin/python").path
        }
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw Unavailable(description: """
                the interop peer's Python interpreter was not found at \(path); \
                run `make bootstrap` in the repository root to create it \
                (or point \(interpreterVariable) at a Python with websockets installed)
                """)
        }
        guard FileManager.default.fileExists(atPath: peerScript) else {
            throw Unavailable(description: "the peer script is missing at \(peerScript)")
        }
        return path
    }
}
