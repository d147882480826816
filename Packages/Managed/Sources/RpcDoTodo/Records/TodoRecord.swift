#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A todo as the store keeps it and the API returns it: `{id, title, completed, createdAt, updatedAt}`.
struct TodoRecord: Codable, Sendable, Equatable {
    var id: String
    var title: String
    var completed: Bool
    var createdAt: Date
    var updatedAt: Date
}
