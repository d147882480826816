#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A server log entry: `{level, message, timestamp}`.
struct LogRecord: Codable, Sendable, Equatable {
    /// Severities, lowest first.
    static let levels = ["debug", "info", "warning", "error"]

    var level: String
    var message: String
    var timestamp: Date

    /// The rank of `level` in ``levels``, `nil` for an unknown level.
    static func rank(_ level: String) -> Int? {
        levels.firstIndex(of: level.lowercased())
    }
}
