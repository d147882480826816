#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// The models the seed's examples use, declared as an app would. Field names follow the demo
// server's answers; the seed leaves most of them undeclared.

struct Avatar: Codable, Sendable {
    var url: String
}

struct Profile: Codable, Sendable {
    var userId: String
    var displayName: String
    var bio: String
    var avatar: Avatar
}

struct User: Codable, Sendable, Identifiable, Hashable {
    let id: String
    var name: String
    var email: String
    var avatarUrl: String
    var displayName: String

    static func == (lhs: User, rhs: User) -> Bool { lhs.id == rhs.id }
    func hash(into hasher: inout Hasher) { hasher.combine(id) }
}

struct Post: Codable, Sendable {
    var id: String
    var userId: String
    var title: String
}

/// The seed's `Notification` (it shadows Foundation's inside this module).
struct Notification: Codable, Sendable, Identifiable {
    let id: String
    var title: String
    var body: String
    var isRead: Bool
}

struct Event: Codable, Sendable {
    enum Priority: String, Codable, Sendable {
        case low, normal, high
    }

    var type: String
    var payload: String
    var priority: Priority
}

struct ChatMessage: Codable, Sendable {
    var text: String
}

struct LogEntry: Codable, Sendable {
    var level: String
    var message: String
}

/// The level argument of `logs.stream(level:)`.
enum LogLevel: String, Codable, Sendable {
    case debug, info, warning, error
}

struct Invitation: Codable, Sendable {
    var code: String
    var email: String
}

struct OnboardingResult: Codable, Sendable {
    var user: User
    var profile: Profile
}

/// The `defaults` argument of `profiles.create(userId:defaults:)`.
enum ProfileDefaults: String, Codable, Sendable {
    case standard, minimal
}

struct DashboardStats: Codable, Sendable {
    var todos: Int
    var completed: Int
    var active: Int
    var users: Int
    var unreadNotifications: Int
}

struct Dashboard: Sendable {
    var user: User
    var stats: DashboardStats
    var notifications: [Notification]
    var todos: [Todo]
}

struct Settings: Codable, Sendable {
    var preferences: [String: String]
}

struct OperationResult: Codable, Sendable {
    var done: Bool
}

struct DataSummary: Codable, Sendable {
    var todos: Int
    var users: Int
}
