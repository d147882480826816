import Foundation
import Synchronization
import Testing
import RpcTransportTesting
import CapnWeb
import CapnWebSocketTestSupport

/// What the server behind seed 001's examples saw, for the tests to check that every line of
/// the seed really reached it.
final class SeedBackend: Sendable {
    struct State {
        var calls: [String] = []
        var todos: [Todo] = [
            Todo(id: "123", title: "Write the seed's examples", completed: false),
            Todo(id: "124", title: "Replay them", completed: true),
        ]
        var nextTodo = 200
        var deletedUsers: [Int] = []
        var hangsStarted = 0
        var hangsRunning = 0
        /// How many `users.get` calls still hang until the caller gives up (the retry example).
        var usersGetHangs = 0
        /// Whether `events.subscribe` keeps its stream open after its three events.
        var endlessEvents = false
        var streamsEnded = 0
    }

    let state = Mutex(State())

    func record(_ call: String) {
        state.withLock { $0.calls.append(call) }
    }

    /// Every call the server ran, in order, as `service.method`.
    var calls: [String] { state.withLock { $0.calls } }

    func count(_ call: String) -> Int { calls.filter { $0 == call }.count }

    /// Suspends until the calling task is cancelled, counting running hangs.
    func hang() async throws {
        state.withLock {
            $0.hangsStarted += 1
            $0.hangsRunning += 1
        }
        defer { state.withLock { $0.hangsRunning -= 1 } }
        while !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(5))
        }
        throw CancellationError()
    }

    // MARK: Payloads

    static func user(_ id: Int, name: String? = nil) -> RpcPayload {
        .object([
            .init("id", .integer(Int64(id))),
            .init("name", .string(name ?? "user-\(id)")),
            .init("profile", profile(id)),
        ])
    }

    static func profile(_ id: Int, suffix: String = "") -> RpcPayload {
        .object([.init("userId", .integer(Int64(id))), .init("displayName", .string("User \(id)\(suffix)"))])
    }

    static func todo(_ todo: Todo) throws -> RpcPayload {
        guard case .object(var members) = try RpcPayload(encoding: todo) else { return .undefined }
        members.append(.init("author", user(7)))
        return .object(members)
    }
}

/// The root object of seed 001's API: everything `session.api` reaches in the seed's examples.
final class SeedServer: RpcTarget {
    let backend: SeedBackend

    init(backend: SeedBackend) {
        self.backend = backend
    }

    func property(_ name: String) async throws -> RpcPayload {
        switch name {
        case "todos": .stub(RpcStub(TodoService(backend: backend)))
        case "users": .stub(RpcStub(UserService(backend: backend, admin: false)))
        case "invitations": .stub(RpcStub(InvitationService(backend: backend)))
        case "profiles": .stub(RpcStub(ProfileService(backend: backend)))
        case "notifications": .stub(RpcStub(NotificationService(backend: backend)))
        case "analytics": .stub(RpcStub(AnalyticsService(backend: backend)))
        case "events": .stub(RpcStub(EventService(backend: backend)))
        case "posts": .stub(RpcStub(PostService(backend: backend)))
        case "friends": .stub(RpcStub(FriendService(backend: backend)))
        case "currentUser": SeedBackend.user(1, name: "ada")
        default: .undefined
        }
    }

    func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
        backend.record(method)
        switch method {
        case "authenticate":
            switch try arguments.decode(0, as: String.self) {
            case "good-token": return .stub(RpcStub(AuthedAPI(backend: backend, admin: false)))
            case "admin-token": return .stub(RpcStub(AuthedAPI(backend: backend, admin: true)))
            default: throw RpcErrorValue(name: "AuthenticationError", message: "Invalid token")
            }
        case "getUserProfile":
            return SeedBackend.profile(try arguments.decode(0, as: Int.self))
        case "doWork":
            return .string("done")
        case "fetchData":
            return ["alpha", "beta"]
        case "riskyOperation":
            throw RpcErrorValue(name: "RiskyError", message: "the operation failed")
        case "longRunningOperation":
            try await backend.hang()
            return .undefined
        case "subscribe":
            // Calls the client's handler back with one message, then lets it go.
            let callback = Ref<Any>(try arguments.stub(0))
            let message = Message(id: "m1", text: "hello", from: "server", timestamp: Date(timeIntervalSince1970: 0))
            _ = try await callback.onMessage(try RpcPayload(encoding: message)).payload()
            return .undefined
        default:
            throw RpcErrorValue.notAFunction(method)
        }
    }
}

/// `api.authenticate(token)`: a capability whose `users` may delete when the token is an
/// administrator's.
final class AuthedAPI: RpcTarget {
    let backend: SeedBackend
    let admin: Bool

    init(backend: SeedBackend, admin: Bool) {
        self.backend = backend
        self.admin = admin
    }

    func property(_ name: String) async throws -> RpcPayload {
        switch name {
        case "currentUser": admin ? SeedBackend.user(1, name: "admin") : SeedBackend.user(2, name: "grace")
        case "todos": .stub(RpcStub(TodoService(backend: backend)))
        case "users": .stub(RpcStub(UserService(backend: backend, admin: admin)))
        default: .undefined
        }
    }
}

/// `api.todos`.
final class TodoService: RpcTarget {
    let backend: SeedBackend

    init(backend: SeedBackend) {
        self.backend = backend
    }

    func property(_ name: String) async throws -> RpcPayload {
        .stub(RpcStub(SingleTodoService(backend: backend, id: name)))
    }

    func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
        backend.record("todos.\(method)")
        switch method {
        case "list":
            var filter = TodoFilter.all
            if case .string(let text) = arguments.value(at: 0), let chosen = TodoFilter(rawValue: text) { filter = chosen }
            let todos = backend.state.withLock { $0.todos }.filter { todo in
                switch filter {
                case .all: true
                case .active: !todo.completed
                case .completed: todo.completed
                }
            }
            return .array(try todos.map(SeedBackend.todo))
        case "get":
            let id = try arguments.decode(0, as: String.self)
            guard let todo = backend.state.withLock({ $0.todos.first { $0.id == id } }) else {
                throw RpcErrorValue(name: "NotFound", message: "no todo \(id)")
            }
            return try SeedBackend.todo(todo)
        case "create":
            let title = try arguments.decode(0, as: String.self)
            let todo = backend.state.withLock { state in
                state.nextTodo += 1
                let todo = Todo(id: "t\(state.nextTodo)", title: title, completed: false)
                state.todos.insert(todo, at: 0)
                return todo
            }
            return try SeedBackend.todo(todo)
        default:
            throw RpcErrorValue.notAFunction(method)
        }
    }
}

/// `api.todos[id]`.
final class SingleTodoService: RpcTarget {
    let backend: SeedBackend
    let id: String

    init(backend: SeedBackend, id: String) {
        self.backend = backend
        self.id = id
    }

    func property(_ name: String) async throws -> RpcPayload {
        name == "author" ? SeedBackend.user(7) : .undefined
    }

    func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
        backend.record("todo.\(method)")
        switch method {
        case "update":
            let completed = try arguments.decode(0, as: Bool.self)
            let updated = backend.state.withLock { state -> Todo? in
                guard let index = state.todos.firstIndex(where: { $0.id == id }) else { return nil }
                state.todos[index].completed = completed
                return state.todos[index]
            }
            guard let updated else { throw RpcErrorValue(name: "NotFound", message: "no todo \(id)") }
            return try SeedBackend.todo(updated)
        default:
            throw RpcErrorValue.notAFunction(method)
        }
    }
}

/// `api.users` (and an administrator's `authed.users`).
final class UserService: RpcTarget {
    let backend: SeedBackend
    let admin: Bool

    init(backend: SeedBackend, admin: Bool) {
        self.backend = backend
        self.admin = admin
    }

    func property(_ name: String) async throws -> RpcPayload {
        Int(name).map { SeedBackend.user($0) } ?? .undefined
    }

    func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
        backend.record("users.\(method)")
        switch method {
        case "get":
            let id = try arguments.decode(0, as: Int.self)
            let hangs = backend.state.withLock { state in
                defer { state.usersGetHangs = max(0, state.usersGetHangs - 1) }
                return state.usersGetHangs > 0
            }
            if hangs { try await backend.hang() }
            return SeedBackend.user(id)
        case "register":
            let code = try arguments.decode(0, as: String.self)
            guard code.hasPrefix("INV-") else { throw RpcErrorValue(name: "InvalidInvitation", message: code) }
            return SeedBackend.user(42, name: try arguments.decode(1, as: String.self))
        case "delete":
            guard admin else {
                throw RpcErrorValue(name: "PermissionDenied", message: "only an administrator may delete users")
            }
            let id = try arguments.decode(0, as: Int.self)
            backend.state.withLock { $0.deletedUsers.append(id) }
            return .undefined
        default:
            throw RpcErrorValue.notAFunction(method)
        }
    }
}

/// `api.invitations`: `create(email:)` returns the invitation with an `accept(name:)` function,
/// whose result has a `setupProfile(defaults:)` function, so the seed's chain pipelines.
final class InvitationService: RpcTarget {
    let backend: SeedBackend

    init(backend: SeedBackend) {
        self.backend = backend
    }

    func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
        backend.record("invitations.\(method)")
        guard method == "create" else { throw RpcErrorValue.notAFunction(method) }
        let email = try arguments.decode(0, as: String.self)
        let backend = self.backend
        let accept = RpcFunction { (arguments: RpcArguments) async throws -> RpcPayload in
            backend.record("invitation.accept")
            let name = try arguments.decode(0, as: String.self)
            let setupProfile = RpcFunction { (arguments: RpcArguments) async throws -> RpcPayload in
                backend.record("accepted.setupProfile")
                let defaults = try arguments.decode(0, as: ProfileDefaults.self)
                return .object([
                    .init("user", SeedBackend.user(42, name: name)),
                    .init("profile", SeedBackend.profile(42, suffix: " (\(defaults.rawValue))")),
                ])
            }
            return .object([.init("user", SeedBackend.user(42, name: name)), .init("setupProfile", .stub(RpcStub(setupProfile)))])
        }
        return .object([
            .init("code", .string("INV-\(email)")),
            .init("email", .string(email)),
            .init("accept", .stub(RpcStub(accept))),
        ])
    }
}

/// `api.profiles`.
final class ProfileService: RpcTarget {
    let backend: SeedBackend

    init(backend: SeedBackend) {
        self.backend = backend
    }

    func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
        backend.record("profiles.\(method)")
        guard method == "setup" else { throw RpcErrorValue.notAFunction(method) }
        let defaults = try arguments.decode(1, as: ProfileDefaults.self)
        return SeedBackend.profile(try arguments.decode(0, as: Int.self), suffix: " (\(defaults.rawValue))")
    }
}

/// `api.notifications`.
final class NotificationService: RpcTarget {
    let backend: SeedBackend

    init(backend: SeedBackend) {
        self.backend = backend
    }

    static let unread = [
        Notification(id: "n1", message: "welcome"),
        Notification(id: "n2", message: "your todo is due"),
    ]

    func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
        backend.record("notifications.\(method)")
        switch method {
        case "unread":
            return try RpcPayload(encoding: Self.unread)
        case "subscribe":
            let topic = try arguments.decode(0, as: String.self)
            let notifications = try (1...3).map { try RpcPayload(encoding: Notification(id: "\(topic)-\($0)", message: "\(topic) #\($0)")) }
            return .readable(RpcReadableStream(elements: notifications))
        default:
            throw RpcErrorValue.notAFunction(method)
        }
    }
}

/// `api.analytics`.
final class AnalyticsService: RpcTarget {
    let backend: SeedBackend

    init(backend: SeedBackend) {
        self.backend = backend
    }

    func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
        backend.record("analytics.\(method)")
        guard method == "summary" else { throw RpcErrorValue.notAFunction(method) }
        let todos = backend.state.withLock { $0.todos }
        return try RpcPayload(encoding: Stats(todoCount: todos.count, completedCount: todos.filter(\.completed).count))
    }
}

/// `api.events`: `subscribe(topic:)` streams three events, then ends or (when the backend
/// says so) goes on producing until the reader goes away.
final class EventService: RpcTarget {
    let backend: SeedBackend

    init(backend: SeedBackend) {
        self.backend = backend
    }

    func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
        backend.record("events.\(method)")
        guard method == "subscribe" else { throw RpcErrorValue.notAFunction(method) }
        let topic = try arguments.decode(0, as: String.self)
        let (stream, continuation) = RpcReadableStream.makeStream()
        for index in 1...3 {
            continuation.yield(try RpcPayload(encoding: Event(name: "\(topic)-\(index)")))
        }
        let backend = self.backend
        guard backend.state.withLock({ $0.endlessEvents }) else {
            continuation.finish()
            return .readable(stream)
        }
        // An endless stream: one more event every 10 ms until the reader goes away, which the
        // producer learns from its next write, as the protocol provides.
        let producer = Task {
            var index = 4
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(10))
                let event = try RpcPayload(encoding: Event(name: "\(topic)-\(index)"))
                if case .terminated = continuation.yield(event) { return }
                index += 1
            }
        }
        continuation.onTermination = { _ in
            backend.state.withLock { $0.streamsEnded += 1 }
            producer.cancel()
        }
        return .readable(stream)
    }
}

/// `api.posts`.
final class PostService: RpcTarget {
    let backend: SeedBackend

    init(backend: SeedBackend) {
        self.backend = backend
    }

    func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
        backend.record("posts.\(method)")
        guard method == "forUser" else { throw RpcErrorValue.notAFunction(method) }
        let id = try arguments.decode(0, as: Int.self)
        return try RpcPayload(encoding: [Post(id: id * 10, title: "first post of \(id)")])
    }
}

/// `api.friends`.
final class FriendService: RpcTarget {
    let backend: SeedBackend

    init(backend: SeedBackend) {
        self.backend = backend
    }

    func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
        backend.record("friends.\(method)")
        guard method == "of" else { throw RpcErrorValue.notAFunction(method) }
        let id = try arguments.decode(0, as: Int.self)
        return .array([SeedBackend.user(id + 1), SeedBackend.user(id + 2)])
    }
}

/// Runs `body` in the WebSocket session harness with a server whose main object is a fresh
/// ``SeedServer`` and its backend. Once `body` has run (or thrown), the harness waits until
/// every server session, and every client session registered with the ``SocketPeers`` (by
/// ``SocketPeers/expectSettled(_:timeout:sourceLocation:)`` or ``SocketPeers/track(_:expecting:)``),
/// is back to `{imports: 1, exports: 1}`, records each that is not, and closes them.
func withSeedServer<T>(
    tls: TLSServerConfiguration? = nil,
    admit: (@Sendable (RpcConnectionInfo) async -> RpcAdmission)? = nil,
    sourceLocation: SourceLocation = #_sourceLocation,
    isolation: isolated (any Actor)? = #isolation,
    _ body: (RpcServer, SeedBackend, SocketPeers) async throws -> T
) async throws -> T {
    let backend = SeedBackend()
    return try await withSocketPeers(
        admit: admit, tls: tls, main: { _ in SeedServer(backend: backend) }, sourceLocation: sourceLocation
    ) { peers in
        try await body(peers.server, backend, peers)
    }
}
