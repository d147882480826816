#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A notification: `{id, title, body, isRead, createdAt}`.
struct NotificationRecord: Codable, Sendable, Equatable {
    var id: String
    var title: String
    var body: String
    var isRead: Bool
    var createdAt: Date
}
