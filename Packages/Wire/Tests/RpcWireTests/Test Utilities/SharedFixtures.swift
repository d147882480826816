import Foundation
import Testing

/// Locates the conformance material that sits beside the repository checkout.
///
/// The directory is `RPC_SHARED_DIR` when that variable is set, otherwise `../shared` relative to
/// the repository root. A missing directory is a test failure, never a silent skip.
enum SharedFixtures {
    /// The repository root, derived from this file's path.
    static var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // Test Utilities
            .deletingLastPathComponent()  // RpcWireTests
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()  // Wire
            .deletingLastPathComponent()  // Packages
            .deletingLastPathComponent()  // repository root
    }

    /// The shared material directory.
    static var sharedDirectory: URL {
        if let override = ProcessInfo.processInfo.environment["RPC_SHARED_DIR"], !override.isEmpty {
            return URL(fileURLWithPath: override)
        }
        return repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared")
    }

    /// A file or directory inside the shared material; records an issue when it is missing.
    static func url(_ relativePath: String, sourceLocation: SourceLocation = #_sourceLocation) -> URL {
        let url = sharedDirectory.appendingPathComponent(relativePath)
        if !FileManager.default.fileExists(atPath: url.path) {
            Issue.record("missing conformance material at \(url.path)", sourceLocation: sourceLocation)
        }
        return url
    }

    /// The bytes of a shared file.
    static func bytes(_ relativePath: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: url(relativePath)))
    }
}
