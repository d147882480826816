public import CapnWeb

/// The main object of the seed's Todo API: what a connection's `api` reaches.
///
/// Members (arguments are positional: labels are dropped on the wire):
///
/// | member | what it is |
/// | --- | --- |
/// | `todos` | `list(filter?)`, `create(title)`, `get(id)`, `delete(id)`, `deleteMany(ids)`, `search(query)` (rate-limited), `todos[id].update(patch)` |
/// | `users` | `get(id)`, `list()`, `create(name, email)`, `delete(id)`, `current`, `all`, `users[id]`, `authenticate(token)`, `waitForRegistration(code, timeout)`, `streamUpdates()` |
/// | `profiles` | `forUser(userId)`, `create(userId, defaults)` |
/// | `notifications` | `subscribe()` (a stream), `unread(limit)`, `recent(limit)`, `markAllRead()`, `send(title, body)` |
/// | `events`, `logs`, `chat` | `subscribe(topic)` / `publish(...)`, `stream(level)`, `join(room)` |
/// | `invitations`, `emails`, `posts`, `social`, `analytics`, `dashboard` | the workflow and dashboard examples |
/// | `echo(message)`, `authenticate(token)`, `longRunningOperation(ms)`, `getData()` | on the main object itself |
///
/// A missing todo or user rejects with an error named `NotFound`, a bad token with
/// `AuthenticationError`, too many `todos.search` calls with `RateLimitExceeded` (property
/// `retryAfter`, seconds), bad arguments with `TypeError` or `RangeError`.
///
/// ```swift
/// let store = TodoStore()
/// try await withRpcServer(main: { TodoAPI(store: store) }) { server in ... }
/// ```
public final class TodoAPI: RpcTarget {
    private let store: TodoStore

    /// The main object of one connection, over `store`.
    public init(store: TodoStore) {
        self.store = store
    }

    /// `echo`, `authenticate`, `longRunningOperation` and `getData`.
    public func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
        let reader = ArgumentReader(arguments, method: method)
        switch method {
        case "echo":
            return arguments.value(at: 0)
        case "authenticate":
            return .stub(RpcStub(AuthSession(store: store, userID: try store.userID(forToken: try reader.text(0, maxLength: store.limits.maxTextLength)))))
        case "longRunningOperation":
            // Clamped to 0...10^12 ms before the conversion, which traps outside Int's range
            // (the limit is a public var, so it may be anything, negative included).
            let delay = store.limits.maxOperationDelay.components
            let maximum = Int(min(max(Double(delay.seconds) * 1000 + Double(delay.attoseconds) / 1e15, 0), 1e12))
            let milliseconds = try reader.limit(0, default: 0, maximum: maximum)
            try await Task.sleep(for: .milliseconds(milliseconds))
            return ["done": true, "tookMilliseconds": .integer(Int64(milliseconds))]
        case "getData":
            let counts = store.counts()
            return ["todos": .integer(Int64(counts.todos)), "users": .integer(Int64(counts.users))]
        default:
            throw RpcErrorValue.notAFunction(method)
        }
    }

    /// The services: `todos`, `users`, `profiles`, `notifications`, `events`, `logs`, `chat`,
    /// `invitations`, `emails`, `posts`, `social`, `analytics` and `dashboard`. They are read at
    /// once, on the connection's event loop, so a call on a service (`todos.list()`) starts no
    /// task for the read.
    public func propertyImmediately(_ name: String) throws -> RpcPayload? {
        switch name {
        case "todos": .stub(RpcStub(TodosService(store: store)))
        case "users": .stub(RpcStub(UsersService(store: store)))
        case "profiles": .stub(RpcStub(ProfilesService(store: store)))
        case "notifications": .stub(RpcStub(NotificationsService(store: store)))
        case "events": .stub(RpcStub(EventsService(store: store)))
        case "logs": .stub(RpcStub(LogsService(store: store)))
        case "chat": .stub(RpcStub(ChatService(store: store)))
        case "invitations": .stub(RpcStub(InvitationsService(store: store)))
        case "emails": .stub(RpcStub(EmailsService(store: store)))
        case "posts": .stub(RpcStub(PostsService(store: store, userID: nil)))
        case "social": .stub(RpcStub(SocialService(store: store)))
        case "analytics", "dashboard": .stub(RpcStub(AnalyticsService(store: store)))
        default: .undefined
        }
    }
}
