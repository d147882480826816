#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization
import CapnWeb

/// The Todo API's data: todos, users with profiles and posts, notifications, events, logs and
/// chat rooms, in memory and thread-safe. One store can back many connections and outlives
/// server restarts, so a client that reconnects finds what it left.
///
/// It starts with demo data: users `123` (Alice), `abc-123` (Bob) and `456` (Carol), bearer
/// tokens `secret` (Alice) and `demo-token` (Bob), todos `1` to `3` and two unread notifications.
///
/// ```swift
/// let store = TodoStore(rateLimit: RateLimit(calls: 2, window: .seconds(1)))
/// let api = TodoAPI(store: store)      // the main object of one connection
/// ```
public final class TodoStore: Sendable {
    /// The bounds the store enforces.
    public let limits: TodoStoreLimits
    /// How often `todos.search` may be called.
    public let rateLimit: RateLimit
    private let state: Mutex<TodoStoreState>

    /// Creates a store holding the demo data.
    public init(limits: TodoStoreLimits = TodoStoreLimits(), rateLimit: RateLimit = RateLimit()) {
        self.limits = limits
        self.rateLimit = rateLimit
        self.state = Mutex(TodoStoreState.seeded(now: Date()))
    }

    /// How many todos the store holds.
    public var todoCount: Int {
        state.withLock { $0.todos.count }
    }

    /// How many streams (notifications, events, logs, chat, user updates) are open right now.
    public var subscriberCount: Int {
        state.withLock { $0.subscribers.count }
    }

    // MARK: Todos

    func todos(status: String) throws -> [TodoRecord] {
        let all = state.withLock { state in state.todoOrder.compactMap { state.todos[$0] } }
        switch status {
        case "all": return all
        case "active": return all.filter { !$0.completed }
        case "completed": return all.filter(\.completed)
        default: throw TodoErrors.type("todos.list: filter must be all, active or completed")
        }
    }

    func todo(_ id: String) throws -> TodoRecord {
        guard let todo = state.withLock({ $0.todos[id] }) else { throw TodoErrors.notFound("todo", id) }
        return todo
    }

    func createTodo(title: String, completed: Bool) throws -> TodoRecord {
        let now = Date()
        let todo = try state.withLock { state -> TodoRecord in
            guard state.todos.count < limits.maxTodos else {
                throw TodoErrors.range("the store holds \(limits.maxTodos) todos already (maxTodos)")
            }
            let id = String(state.nextTodoID)
            state.nextTodoID += 1
            let todo = TodoRecord(id: id, title: title, completed: completed, createdAt: now, updatedAt: now)
            state.todos[id] = todo
            state.todoOrder.append(id)
            return todo
        }
        announce(topic: "todos", type: "todo.created", text: "Todo \(todo.id) created: \(todo.title)")
        return todo
    }

    func updateTodo(_ id: String, title: String?, completed: Bool?) throws -> TodoRecord {
        let todo = try state.withLock { state -> TodoRecord in
            guard var todo = state.todos[id] else { throw TodoErrors.notFound("todo", id) }
            if let title { todo.title = title }
            if let completed { todo.completed = completed }
            todo.updatedAt = Date()
            state.todos[id] = todo
            return todo
        }
        announce(topic: "todos", type: "todo.updated", text: "Todo \(id) updated")
        return todo
    }

    func deleteTodo(_ id: String) throws -> TodoRecord {
        let todo = try state.withLock { state -> TodoRecord in
            guard let todo = state.todos.removeValue(forKey: id) else { throw TodoErrors.notFound("todo", id) }
            state.todoOrder.removeAll { $0 == id }
            return todo
        }
        announce(topic: "todos", type: "todo.deleted", text: "Todo \(id) deleted")
        return todo
    }

    func deleteTodos(_ ids: [String]) -> Int {
        let wanted = Set(ids)
        let count = state.withLock { state -> Int in
            let before = state.todos.count
            for id in wanted { state.todos[id] = nil }
            state.todoOrder.removeAll { wanted.contains($0) }
            return before - state.todos.count
        }
        announce(topic: "todos", type: "todo.deleted", text: "\(count) todos deleted")
        return count
    }

    /// Admits one call of the rate-limited method or throws `RateLimitExceeded`.
    func admitRateLimitedCall(now: ContinuousClock.Instant = .now) throws {
        let limit = rateLimit
        let retryAfter = state.withLock { state -> Duration? in
            if let start = state.rateWindowStart, now - start < limit.window {
                guard state.rateWindowCalls < limit.calls else { return limit.window - (now - start) }
                state.rateWindowCalls += 1
                return nil
            }
            guard limit.calls > 0 else { return limit.window }
            state.rateWindowStart = now
            state.rateWindowCalls = 1
            return nil
        }
        if let retryAfter {
            let seconds = Double(retryAfter.components.seconds) + Double(retryAfter.components.attoseconds) / 1e18
            // Rounded up to the millisecond so that waiting that long always reaches the next window.
            let rounded = (seconds * 1000).rounded(.up) / 1000
            log("warning", "todos.search rate limited; retry after \(rounded) s")
            throw TodoErrors.rateLimited(retryAfter: rounded)
        }
    }

    // MARK: Users

    func users() -> [UserRecord] {
        state.withLock { state in state.userOrder.compactMap { state.users[$0] } }
    }

    func user(_ id: String) throws -> UserRecord {
        guard let user = state.withLock({ $0.users[id] }) else { throw TodoErrors.notFound("user", id) }
        return user
    }

    func currentUser() throws -> UserRecord {
        try user(state.withLock { $0.currentUserID })
    }

    func userID(forToken token: String) throws -> String {
        guard let id = state.withLock({ $0.tokens[token] }) else {
            log("error", "authentication failed")
            throw TodoErrors.authentication("Invalid token")
        }
        return id
    }

    func createUser(name: String, email: String) throws -> UserRecord {
        let user = try state.withLock { state -> UserRecord in
            guard state.users.count < limits.maxUsers else {
                throw TodoErrors.range("the store holds \(limits.maxUsers) users already (maxUsers)")
            }
            let id = "user-\(state.nextUserID)"
            state.nextUserID += 1
            let user = TodoStoreState.user(id: id, name: name, email: email)
            state.insertUser(user)
            return user
        }
        userChanged(user, type: "user.created")
        return user
    }

    func updateUser(_ id: String, name: String?, email: String?) throws -> UserRecord {
        let user = try state.withLock { state -> UserRecord in
            guard var user = state.users[id] else { throw TodoErrors.notFound("user", id) }
            if let name {
                user.name = name
                user.displayName = name
                user.profile.displayName = name
            }
            if let email { user.email = email }
            state.users[id] = user
            return user
        }
        userChanged(user, type: "user.updated")
        return user
    }

    func deleteUser(_ id: String) throws -> UserRecord {
        guard let user = state.withLock({ $0.removeUser(id) }) else { throw TodoErrors.notFound("user", id) }
        userChanged(user, type: "user.deleted")
        return user
    }

    func updateProfile(_ userID: String, bio: String?, preferences: [String: String]?) throws -> ProfileRecord {
        let user = try state.withLock { state -> UserRecord in
            guard var user = state.users[userID] else { throw TodoErrors.notFound("user", userID) }
            if let bio { user.profile.bio = bio }
            if let preferences { user.profile.settings.preferences.merge(preferences) { $1 } }
            state.users[userID] = user
            return user
        }
        userChanged(user, type: "profile.updated")
        return user.profile
    }

    func posts(of userID: String, limit: Int) throws -> [PostRecord] {
        _ = try user(userID)
        return Array(state.withLock { $0.posts.filter { $0.userId == userID } }.prefix(limit))
    }

    func following(of userID: String) throws -> [UserRecord] {
        _ = try user(userID)
        return state.withLock { state in (state.following[userID] ?? []).compactMap { state.users[$0] } }
    }

    // MARK: Invitations

    func createInvitation(email: String) -> String {
        let code = state.withLock { state -> String in
            let code = "INV-\(state.nextInvitationID)"
            state.nextInvitationID += 1
            state.invitations[code] = (email, nil)
            return code
        }
        log("info", "invitation \(code) sent to \(email)")
        return code
    }

    /// The user who accepted invitation `code`; this demo accepts on the first ask, creating the
    /// user from the invited email.
    func acceptInvitation(_ code: String) throws -> UserRecord {
        guard let invitation = state.withLock({ $0.invitations[code] }) else {
            throw TodoErrors.notFound("invitation", code)
        }
        if let userID = invitation.userID, let user = try? user(userID) { return user }
        let name = String(invitation.email.prefix { $0 != "@" })
        let user = try createUser(name: name.isEmpty ? invitation.email : name, email: invitation.email)
        state.withLock { $0.invitations[code]?.userID = user.id }
        return user
    }

    // MARK: Notifications

    @discardableResult
    func addNotification(title: String, body: String) -> NotificationRecord {
        let record = state.withLock { state -> NotificationRecord in
            let record = NotificationRecord(
                id: "n\(state.nextNotificationID)", title: title, body: body, isRead: false, createdAt: Date())
            state.nextNotificationID += 1
            state.notifications.insert(record, at: 0)
            if state.notifications.count > limits.notificationRetention {
                state.notifications.removeLast(state.notifications.count - limits.notificationRetention)
            }
            return record
        }
        if let payload = try? RpcPayload(encoding: record) {
            deliver([("notifications", payload)])
        }
        return record
    }

    func notifications(unreadOnly: Bool, limit: Int) -> [NotificationRecord] {
        state.withLock { state in
            Array(state.notifications.filter { !unreadOnly || !$0.isRead }.prefix(limit))
        }
    }

    func markAllNotificationsRead() -> Int {
        state.withLock { state in
            var count = 0
            for index in state.notifications.indices where !state.notifications[index].isRead {
                state.notifications[index].isRead = true
                count += 1
            }
            return count
        }
    }

    // MARK: Events, logs, chat

    @discardableResult
    func publishEvent(topic: String, type: String, payload: String, priority: String) -> EventRecord {
        let event = state.withLock { state -> EventRecord in
            defer { state.nextEventID += 1 }
            return EventRecord(id: "e\(state.nextEventID)", topic: topic, type: type, payload: payload, priority: priority)
        }
        if let encoded = try? RpcPayload(encoding: event) {
            deliver([("events:\(topic)", encoded), ("events:all", encoded)])
        }
        return event
    }

    func log(_ level: String, _ message: String) {
        let entry = LogRecord(level: level, message: message, timestamp: Date())
        state.withLock { state in
            state.logs.append(entry)
            if state.logs.count > limits.logRetention {
                state.logs.removeFirst(state.logs.count - limits.logRetention)
            }
        }
        guard let rank = LogRecord.rank(level), let payload = try? RpcPayload(encoding: entry) else { return }
        deliver(LogRecord.levels[...rank].map { ("logs:\($0)", payload) })
    }

    func logs(atLeast level: String) -> [LogRecord] {
        let minimum = LogRecord.rank(level) ?? 0
        return state.withLock { $0.logs.filter { (LogRecord.rank($0.level) ?? 0) >= minimum } }
    }

    func postChatMessage(room: String, text: String) -> ChatMessageRecord {
        let message = state.withLock { state -> ChatMessageRecord in
            defer { state.nextMessageID += 1 }
            return ChatMessageRecord(id: "m\(state.nextMessageID)", room: room, text: text, sentAt: Date())
        }
        if let payload = try? RpcPayload(encoding: message) {
            deliver([("chat:\(room)", payload)])
        }
        return message
    }

    /// Counts for `analytics.dashboard` and `dashboard.dailySummary`.
    func counts() -> (todos: Int, completed: Int, users: Int, unread: Int, next: TodoRecord?) {
        state.withLock { state in
            let todos = state.todoOrder.compactMap { state.todos[$0] }
            return (
                todos.count, todos.filter(\.completed).count, state.users.count,
                state.notifications.filter { !$0.isRead }.count, todos.first { !$0.completed }
            )
        }
    }

    // MARK: Streams

    /// A stream of what is published on `channel`, starting with `initial`. It ends when the
    /// reader goes away; a reader more than ``TodoStoreLimits/subscriberBuffer`` chunks behind
    /// loses the oldest.
    func subscribe(_ channel: String, initial: [RpcPayload] = []) throws -> RpcReadableStream {
        let (stream, continuation) = AsyncThrowingStream<RpcPayload, any Error>.makeStream(
            bufferingPolicy: .bufferingNewest(limits.subscriberBuffer))
        let id = try state.withLock { state -> UInt64 in
            guard state.subscribers.count < limits.maxSubscribers else {
                throw TodoErrors.range("\(limits.maxSubscribers) streams are open already (maxSubscribers)")
            }
            let id = state.nextSubscriberID
            state.nextSubscriberID += 1
            state.subscribers[id] = TodoStoreState.Subscriber(channel: channel, continuation: continuation)
            return id
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        for payload in initial { continuation.yield(payload) }
        return RpcReadableStream(stream)
    }

    /// Ends every open stream: each reader sees its stream end normally.
    ///
    /// A Cap'n Web reader that stops reading early does not tell the writer, so a stream stays
    /// open until its connection closes or this is called.
    public func finishStreams() {
        let continuations = state.withLock { state in state.subscribers.values.map(\.continuation) }
        for continuation in continuations { continuation.finish() }
    }

    private func deliver(_ deliveries: [(channel: String, payload: RpcPayload)]) {
        guard !deliveries.isEmpty else { return }
        let targets = state.withLock { state in
            deliveries.flatMap { delivery in
                state.subscribers.values.filter { $0.channel == delivery.channel }.map { ($0.continuation, delivery.payload) }
            }
        }
        for (continuation, payload) in targets { continuation.yield(payload) }
    }

    private func announce(topic: String, type: String, text: String) {
        log("info", text)
        publishEvent(topic: topic, type: type, payload: text, priority: type.hasSuffix("deleted") ? "high" : "normal")
        if type == "todo.created" {
            addNotification(title: "New todo", body: text)
        }
    }

    private func userChanged(_ user: UserRecord, type: String) {
        log("info", "\(type) \(user.id)")
        publishEvent(topic: "users", type: type, payload: user.id, priority: "normal")
        if let payload = try? RpcPayload(encoding: user) {
            deliver([("users", payload)])
        }
    }
}
