#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import CapnWeb

/// Everything a ``TodoStore`` holds, behind its mutex.
struct TodoStoreState {
    /// An open stream: the channel it reads and the continuation that feeds it.
    struct Subscriber {
        var channel: String
        var continuation: AsyncThrowingStream<RpcPayload, any Error>.Continuation
    }

    var todos: [String: TodoRecord] = [:]
    /// Todo IDs, oldest first.
    var todoOrder: [String] = []
    var nextTodoID = 1
    var users: [String: UserRecord] = [:]
    /// User IDs, oldest first.
    var userOrder: [String] = []
    var nextUserID = 1
    /// Bearer token → user ID.
    var tokens: [String: String] = [:]
    var currentUserID = "123"
    var posts: [PostRecord] = []
    /// User ID → the IDs of the users it follows.
    var following: [String: [String]] = [:]
    /// Newest first.
    var notifications: [NotificationRecord] = []
    var nextNotificationID = 1
    /// Oldest first.
    var logs: [LogRecord] = []
    /// Invitation code → (email, registered user ID).
    var invitations: [String: (email: String, userID: String?)] = [:]
    var nextInvitationID = 1
    var nextEventID = 1
    var nextMessageID = 1
    var subscribers: [UInt64: Subscriber] = [:]
    var nextSubscriberID: UInt64 = 0
    var rateWindowStart: ContinuousClock.Instant?
    var rateWindowCalls = 0

    /// The demo data: three users with profiles and posts, three todos, two notifications.
    static func seeded(now: Date) -> TodoStoreState {
        var state = TodoStoreState()
        let people: [(id: String, name: String, email: String, bio: String)] = [
            ("123", "Alice Martin", "alice@example.com", "Writes the backend."),
            ("abc-123", "Bob Chen", "bob@example.com", "Designs the app."),
            ("456", "Carol Diaz", "carol@example.com", "Runs the project."),
        ]
        for person in people {
            state.insertUser(Self.user(id: person.id, name: person.name, email: person.email, bio: person.bio))
        }
        state.tokens = ["secret": "123", "demo-token": "abc-123"]
        state.following = ["123": ["abc-123", "456"], "abc-123": ["123"], "456": []]
        let titles = [
            ("123", "Hello from the server"), ("123", "Pipelining in practice"), ("123", "Maps without N+1"),
            ("abc-123", "Designing for small screens"),
        ]
        for (index, post) in titles.enumerated() {
            state.posts.append(PostRecord(id: "p\(index + 1)", userId: post.0, title: post.1))
        }
        for (title, completed) in [("Buy milk", false), ("Write the demo", true), ("Ship it", false)] {
            let id = String(state.nextTodoID)
            state.nextTodoID += 1
            state.todos[id] = TodoRecord(id: id, title: title, completed: completed, createdAt: now, updatedAt: now)
            state.todoOrder.append(id)
        }
        for (title, body) in [("Welcome", "Your workspace is ready."), ("Tip", "Pipelined calls share one round trip.")] {
            let id = "n\(state.nextNotificationID)"
            state.nextNotificationID += 1
            state.notifications.insert(
                NotificationRecord(id: id, title: title, body: body, isRead: false, createdAt: now), at: 0)
        }
        return state
    }

    /// A user with a generated avatar and default settings.
    static func user(id: String, name: String, email: String, bio: String = "") -> UserRecord {
        let avatar = "https://avatars.example.com/\(id).png"
        return UserRecord(
            id: id, name: name, displayName: name, email: email, avatarUrl: avatar,
            profile: ProfileRecord(
                userId: id, displayName: name, bio: bio, avatar: .init(url: avatar),
                settings: .init(preferences: ["theme": "system", "language": "en"])))
    }

    mutating func insertUser(_ user: UserRecord) {
        if users[user.id] == nil { userOrder.append(user.id) }
        users[user.id] = user
    }

    mutating func removeUser(_ id: String) -> UserRecord? {
        guard let user = users.removeValue(forKey: id) else { return nil }
        userOrder.removeAll { $0 == id }
        return user
    }
}
