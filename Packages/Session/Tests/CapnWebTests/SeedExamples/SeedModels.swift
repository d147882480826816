import Foundation

// The value types seed 001's examples use. The seed leaves them undeclared; these are the
// smallest Codable shapes its lines need.

/// A user, as `users.get(id:)`, `currentUser` and the workflows return it.
struct User: Codable, Sendable, Equatable, Identifiable {
    var id: Int
    var name: String
}

/// A user's profile.
struct Profile: Codable, Sendable, Equatable {
    var userId: Int
    var displayName: String
}

/// A todo item (`Identifiable` for the seed's `ForEach`).
struct Todo: Codable, Sendable, Equatable, Identifiable {
    var id: String
    var title: String
    var completed: Bool
}

/// The filter of `todos.list(filter:)`.
enum TodoFilter: String, Codable, Sendable {
    case all, active, completed
}

/// The defaults of `profiles.setup(userId:defaults:)`.
enum ProfileDefaults: String, Codable, Sendable {
    case standard, minimal
}

/// A post of `posts.forUser(id:)`.
struct Post: Codable, Sendable, Equatable {
    var id: Int
    var title: String
}

/// The summary of `analytics.summary()`.
struct Stats: Codable, Sendable, Equatable {
    var todoCount: Int
    var completedCount: Int
}

/// A notification (`Identifiable` for the seed's `ForEach`). Declared here, it shadows
/// Foundation's `Notification` in this module, as it does in the seed's app.
struct Notification: Codable, Sendable, Equatable, Identifiable {
    var id: String
    var message: String
}

/// An event of `events.subscribe(topic:)`.
struct Event: Codable, Sendable, Equatable {
    var name: String
}

/// An invitation of `invitations.create(email:)`.
struct Invitation: Codable, Sendable, Equatable {
    var code: String
    var email: String
}

/// A chat message, as the seed's `ChatRoom` and `NotificationHandler` use it.
struct Message: Codable, Sendable, Equatable {
    var id: String
    var text: String
    var from: String
    var timestamp: Date
}

/// What the seed's `loadDashboard()` builds.
struct Dashboard: Sendable, Equatable {
    var user: User
    var todos: [Todo]
    var notifications: [Notification]
    var stats: Stats
}

/// The typed-session API markers. The seed declares these as `@RpcProtocol` protocols; without
/// the macro a session's `API` parameter only names the API, so empty enums stand for them.
enum TodoAPI {}
/// The API of the seed's configuration, streaming and security examples.
enum API {}

extension Foundation.Notification.Name {
    /// The name the seed's `NotificationHandler` posts under.
    static let newMessage = Foundation.Notification.Name("newMessage")
}
