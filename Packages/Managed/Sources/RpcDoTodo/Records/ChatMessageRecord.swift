#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A chat message: `{id, room, text, sentAt}`.
struct ChatMessageRecord: Codable, Sendable, Equatable {
    var id: String
    var room: String
    var text: String
    var sentAt: Date
}
