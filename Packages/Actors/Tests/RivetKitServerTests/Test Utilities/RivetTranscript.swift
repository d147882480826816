import Foundation
import RivetKit
import Testing

/// The wire transcripts of RivetKit's own client (`conformance/rivetkit/server-*.log`), one
/// JSON object per line, as the logging server saw them.
struct RivetTranscript {
    /// One line of a server log.
    struct Entry {
        var kind: String
        var fields: JSONObject

        /// A string field.
        func string(_ name: String) -> String? { fields[name]?.stringValue }
    }

    /// The names of the three runs.
    static let runs = ["default", "with-auth", "undici-by-id"]

    var entries: [Entry]

    /// Loads `server-<run>.log`; a missing file is a test failure.
    static func load(_ run: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> RivetTranscript {
        let url = SharedMaterial.url("conformance/rivetkit/server-\(run).log", sourceLocation: sourceLocation)
        let text = try String(contentsOf: url, encoding: .utf8)
        let entries = try text.split(separator: "\n").map { line -> Entry in
            guard case .object(let object) = try JSONValue(parsing: String(line)),
                case .string(let kind)? = object["kind"]
            else { throw TranscriptError(line: String(line)) }
            return Entry(kind: kind, fields: object)
        }
        return RivetTranscript(entries: entries)
    }

    /// The entries of one kind.
    func entries(_ kind: String) -> [Entry] {
        entries.filter { $0.kind == kind }
    }

    struct TranscriptError: Error {
        var line: String
    }
}

/// Locates the conformance material beside the checkout: `RPC_SHARED_DIR`, else `../shared`
/// relative to the repository root. Missing material is a failure, never a skip.
enum SharedMaterial {
    static var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // Test Utilities
            .deletingLastPathComponent()  // RivetKitServerTests
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()  // Actors
            .deletingLastPathComponent()  // Packages
            .deletingLastPathComponent()  // repository root
    }

    static func url(_ relativePath: String, sourceLocation: SourceLocation = #_sourceLocation) -> URL {
        let base: URL
        if let override = ProcessInfo.processInfo.environment["RPC_SHARED_DIR"], !override.isEmpty {
            base = URL(fileURLWithPath: override)
        } else {
            base = repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared")
        }
        let url = base.appendingPathComponent(relativePath)
        if !FileManager.default.fileExists(atPath: url.path) {
            Issue.record("missing conformance material at \(url.path)", sourceLocation: sourceLocation)
        }
        return url
    }
}
