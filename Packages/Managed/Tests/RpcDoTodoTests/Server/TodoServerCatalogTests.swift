import CapnWeb
import RpcDoTodo
import RpcTesting
import Testing

/// The rest of the Todo API, method by method, with CapnWeb's own client over WebSocket; each
/// test ends with both sides back to `{imports: 1, exports: 1}`.
@Suite("Todo server: the rest of the API")
struct TodoServerCatalogTests {
    struct Stats: Decodable, Sendable, Equatable {
        var todos: Int
        var completed: Int
        var active: Int
        var users: Int
        var unreadNotifications: Int
    }

    struct Summary: Decodable, Sendable {
        var completedTasks: Int
        var pendingTasks: Int
        var nextTask: WireTodo?
    }

    struct Post: Decodable, Sendable { var id: String; var userId: String; var title: String }
    struct Event: Decodable, Sendable { var topic: String; var type: String; var payload: String; var priority: String }
    struct Done: Decodable, Sendable { var done: Bool; var tookMilliseconds: Int }

    @Test("echo, getData and longRunningOperation on the main object")
    func mainObject() async throws {
        try await withTodoSession { api, _ in
            let echoed: [String: Int] = try await api.echo(["a": 1] as RpcPayload)
            #expect(echoed == ["a": 1])
            let data: [String: Int] = try await api.getData()
            #expect(data == ["todos": 3, "users": 3])
            let done: Done = try await api.longRunningOperation(20)
            #expect(done.done && done.tookMilliseconds == 20)
            func tooLong() -> Ref<Any> { api.longRunningOperation(60_000) }
            #expect(await rejection(tooLong())?.name == "RangeError")
        }
    }

    @Test("analytics.dashboard and dashboard.dailySummary count todos, users and unread notifications")
    func dashboards() async throws {
        try await withTodoSession { api, _ in
            let stats: Stats = try await api.analytics.dashboard
            #expect(stats == Stats(todos: 3, completed: 1, active: 2, users: 3, unreadNotifications: 2))
            let summary: Summary = try await api.dashboard.dailySummary
            #expect(summary.completedTasks == 1 && summary.pendingTasks == 2)
            #expect(summary.nextTask?.title == "Buy milk")
        }
    }

    @Test("todos.update(id, patch), and toggle and delete on todos[id]")
    func todoMethods() async throws {
        let store = TodoStore()
        try await withTodoSession(store: store) { api, _ in
            let updated: WireTodo = try await api.todos.update("1", ["title": "Buy oat milk"] as RpcPayload)
            #expect(updated.title == "Buy oat milk" && !updated.completed)
            func todo(_ id: String) -> Ref<Any> { api.todos[id] }
            let toggled: WireTodo = try await todo("1").toggle().resolved()
            #expect(toggled.completed)
            let deleted: WireTodo = try await todo("1").delete().resolved()
            #expect(deleted.id == "1" && store.todoCount == 2)
            #expect(await rejection(todo("1"))?.name == "NotFound")
        }
    }

    @Test("users.create, users.delete, users.list, posts, following and profiles.create")
    func userMethods() async throws {
        try await withTodoSession { api, _ in
            let created: WireUser = try await api.users.create("Grace", "grace@example.com")
            #expect(created.profile.displayName == "Grace")
            let all: [WireUser] = try await api.users.list()
            #expect(all.map(\.id) == ["123", "abc-123", "456", created.id])
            let profile: WireUser.Profile = try await api.profiles.create(created.id, "standard")
            #expect(profile.userId == created.id)
            let custom: [String: RpcPayload] = try await api.profiles.create(created.id, ["bio": "Hi"] as RpcPayload).payload().decode()
            if case .string(let bio)? = custom["bio"] { #expect(bio == "Hi") } else { Issue.record("bio is a string") }
            let deleted: WireUser = try await api.users.delete(created.id)
            #expect(deleted.id == created.id)
            func profileOfDeleted() -> Ref<Any> { api.profiles.forUser(created.id) }
            #expect(await rejection(profileOfDeleted())?.name == "NotFound")

            let posts: [Post] = try await api.posts.forUser("123", 2)
            #expect(posts.map(\.id) == ["p1", "p2"])
            let following: [WireUser] = try await api.social.following("123")
            #expect(following.map(\.id) == ["abc-123", "456"])
        }
    }

    @Test("events.subscribe(topic) streams what publish and changes to todos publish; all sees every topic")
    func events() async throws {
        let store = TodoStore()
        try await withTodoSession(store: store) { api, _ in
            do {
                let deploys: AsyncThrowingStream<Event, any Error> = try await api.events.subscribe("deploys")
                let everything: AsyncThrowingStream<Event, any Error> = try await api.events.subscribe("all")
                let published: Event = try await api.events.publish("deploys", "deploy.started", "v1", "high")
                #expect(published.priority == "high")
                let _: WireTodo = try await api.todos.create("Watch the deploy")
                for try await event in deploys {
                    #expect(event.type == "deploy.started" && event.payload == "v1")
                    break
                }
                var types: [String] = []
                for try await event in everything {
                    types.append(event.type)
                    if types.count == 2 { break }
                }
                #expect(types == ["deploy.started", "todo.created"])
                func badPriority() -> Ref<Any> { api.events.publish("deploys", "x", "y", "urgent") }
                #expect(await rejection(badPriority())?.name == "TypeError")
            }
            store.finishStreams()
            #expect(await waitUntil { store.subscriberCount == 0 })
        }
    }

    @Test("users.streamUpdates() streams users as they change")
    func userUpdates() async throws {
        let store = TodoStore()
        try await withTodoSession(store: store) { api, _ in
            do {
                let updates: AsyncThrowingStream<WireUser, any Error> = try await api.users.streamUpdates()
                let _: WireUser = try await api.users.create("Heidi", "heidi@example.com")
                for try await user in updates {
                    #expect(user.name == "Heidi")
                    break
                }
            }
            store.finishStreams()
            #expect(await waitUntil { store.subscriberCount == 0 })
        }
    }

    @Test("limits: a full store and too many streams reject with RangeError and keep what is stored")
    func limits() async throws {
        let store = TodoStore(limits: TodoStoreLimits(maxTodos: 3, maxSubscribers: 1))
        try await withTodoSession(store: store) { api, _ in
            func create() -> Ref<Any> { api.todos.create("one too many") }
            let full = await rejection(create())
            #expect(full?.name == "RangeError" && full?.message.contains("maxTodos") == true)
            #expect(store.todoCount == 3)
            do {
                let first: AsyncThrowingStream<WireNotification, any Error> = try await api.notifications.subscribe()
                func second() -> Ref<Any> { api.notifications.subscribe() }
                let refused = await rejection(second())
                #expect(refused?.name == "RangeError" && refused?.message.contains("maxSubscribers") == true)
                _ = first
            }
            store.finishStreams()
            #expect(await waitUntil { store.subscriberCount == 0 })
        }
    }
}
