#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// What the demo client decodes: its own models, as an app would declare them.

/// A todo.
struct Todo: Codable, Sendable {
    let id: String
    var title: String
    var completed: Bool
    var createdAt: Date
    var updatedAt: Date
}

/// A user's profile.
struct Profile: Codable, Sendable {
    var userId: String
    var displayName: String
}

/// A user.
struct User: Codable, Sendable {
    let id: String
    var name: String
    var email: String
    var profile: Profile
}

/// A notification.
struct AppNotification: Codable, Sendable {
    let id: String
    var title: String
    var body: String
    var isRead: Bool
}

/// `analytics.dashboard`.
struct DashboardStats: Codable, Sendable {
    var todos: Int
    var completed: Int
    var users: Int
    var unreadNotifications: Int
}
