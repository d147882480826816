#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import CapnWeb
import RpcDoTodo
import RpcTesting
import Testing

/// The Todo API served by ``TodoServer`` and called by CapnWeb's own client over a real
/// WebSocket on 127.0.0.1. Every test ends with both sides back to `{imports: 1, exports: 1}`.
@Suite("Todo server")
struct TodoServerTests {
    @Test("todos: list, create, get, update through todos[id], delete and deleteMany")
    func todoLifecycle() async throws {
        let store = TodoStore()
        try await withTodoSession(store: store) { api, _ in
            let initial: [WireTodo] = try await api.todos.list()
            #expect(initial.map(\.title) == ["Buy milk", "Write the demo", "Ship it"])
            let active: [WireTodo] = try await api.todos.list("active")
            #expect(active.allSatisfy { !$0.completed } && active.count == 2)
            let byObject: [WireTodo] = try await api.todos.list(["status": "completed"] as RpcPayload)
            #expect(byObject.map(\.title) == ["Write the demo"])

            let created: WireTodo = try await api.todos.create("Write tests")
            #expect(created.title == "Write tests" && !created.completed)
            let fetched: WireTodo = try await api.todos.get(created.id)
            #expect(fetched == created)

            let completed: WireTodo = try await api.todos[created.id].update(true)
            #expect(completed.completed && completed.title == "Write tests")
            let renamed: WireTodo = try await api.todos[created.id].update("Write more tests")
            #expect(renamed.title == "Write more tests" && renamed.completed)
            let patched: WireTodo = try await api.todos[created.id].update(["completed": false, "title": "Done?"] as RpcPayload)
            #expect(patched.title == "Done?" && !patched.completed)
            let title: String = try await api.todos[created.id].title
            #expect(title == "Done?")
            func todo(_ id: String) -> Ref<Any> { api.todos[id] }
            let asValue: WireTodo = try await todo(created.id).resolved()
            #expect(asValue.title == "Done?")

            let deleted: WireTodo = try await api.todos.delete(created.id)
            #expect(deleted.id == created.id)
            #expect(store.todoCount == 3)
            let result: [String: Int] = try await api.todos.deleteMany(["1", "2", "404"])
            #expect(result == ["deleted": 2])
            let remaining: [WireTodo] = try await api.todos.list()
            #expect(remaining.map(\.id) == ["3"])
        }
    }

    @Test("a missing todo, todo handle or user rejects with NotFound naming the id")
    func notFound() async throws {
        try await withTodoSession { api, _ in
            func ref1() -> Ref<Any> { api.todos.get("999") }
            let missingTodo = await rejection(ref1())
            #expect(missingTodo?.name == "NotFound")
            if case .string(let id)? = missingTodo?.property("id") {
                #expect(id == "999")
            } else {
                Issue.record("NotFound carries the id")
            }
            func ref2() -> Ref<Any> { api.todos["999"].update(true) }
            #expect(await rejection(ref2())?.name == "NotFound")
            func ref3() -> Ref<Any> { api.users.get("nobody") }
            #expect(await rejection(ref3())?.name == "NotFound")
            func ref4() -> Ref<Any> { api.todos.delete("999") }
            #expect(await rejection(ref4())?.name == "NotFound")
            await #expect(throws: RpcError.self) {
                let _: WireTodo = try await api.todos.get("999")
            }
        }
    }

    @Test("bad arguments reject with TypeError or RangeError and change nothing")
    func badArguments() async throws {
        let store = TodoStore(limits: TodoStoreLimits(maxTextLength: 10, maxListLimit: 2))
        try await withTodoSession(store: store) { api, _ in
            func ref5() -> Ref<Any> { api.todos.create("   ") }
            #expect(await rejection(ref5())?.name == "TypeError")
            func ref6() -> Ref<Any> { api.todos.create(42) }
            #expect(await rejection(ref6())?.name == "TypeError")
            func ref7() -> Ref<Any> { api.todos.create("a title that is too long") }
            #expect(await rejection(ref7())?.name == "RangeError")
            func ref8() -> Ref<Any> { api.todos.deleteMany(["1", "2", "3"]) }
            #expect(await rejection(ref8())?.name == "RangeError")
            func ref9() -> Ref<Any> { api.todos.list("someday") }
            #expect(await rejection(ref9())?.name == "TypeError")
            func ref10() -> Ref<Any> { api.notifications.recent(-1) }
            #expect(await rejection(ref10())?.name == "RangeError")
            func ref11() -> Ref<Any> { api.logs.stream("loud") }
            #expect(await rejection(ref11())?.name == "TypeError")
            func ref12() -> Ref<Any> { api.todos.frobnicate() }
            #expect(await rejection(ref12())?.name == "TypeError")
            #expect(store.todoCount == 3)
        }
    }

    @Test("todos.search past the rate limit rejects with RateLimitExceeded and retryAfter in seconds")
    func rateLimit() async throws {
        let store = TodoStore(rateLimit: RateLimit(calls: 2, window: .seconds(60)))
        try await withTodoSession(store: store) { api, _ in
            let milk: [WireTodo] = try await api.todos.search("MILK")
            #expect(milk.map(\.title) == ["Buy milk"])
            let all: [WireTodo] = try await api.todos.search("")
            #expect(all.count == 3)
            func ref13() -> Ref<Any> { api.todos.search("milk") }
            let limited = await rejection(ref13())
            #expect(limited?.name == "RateLimitExceeded")
            guard let retryAfter = seconds(limited?.property("retryAfter")) else {
                Issue.record("retryAfter is a number of seconds: \(String(describing: limited))")
                return
            }
            #expect(retryAfter > 0 && retryAfter <= 60)
        }
    }

    @Test("after waiting retryAfter, the rate-limited call succeeds")
    func rateLimitWindowEnds() async throws {
        let store = TodoStore(rateLimit: RateLimit(calls: 1, window: .milliseconds(300)))
        try await withTodoSession(store: store) { api, _ in
            let first: [WireTodo] = try await api.todos.search("ship")
            #expect(first.count == 1)
            func ref14() -> Ref<Any> { api.todos.search("ship") }
            let limited = await rejection(ref14())
            guard let retryAfter = seconds(limited?.property("retryAfter")) else {
                Issue.record("the second call is rate limited: \(String(describing: limited))")
                return
            }
            try await Task.sleep(for: .milliseconds(Int64((retryAfter * 1000).rounded(.up))))
            let again: [WireTodo] = try await api.todos.search("ship")
            #expect(again.count == 1)
        }
    }

    @Test("users.get(id).profile.displayName is one pipeline: one pull for the whole chain")
    func pipelinedChain() async throws {
        try await withTodoSession { api, server in
            server.resetTraffic()
            let name: String = try await api.users.get("123").profile.displayName
            #expect(name == "Alice Martin")
            #expect(server.traffic.pulls == 1)
            #expect(server.traffic.resolves == 1)

            let avatar: String = try await api.authenticate("secret").currentUser.profile.avatar.url
            #expect(avatar.hasSuffix("/123.png"))
            let bob: String = try await api.users.authenticate("demo-token").currentUser.name
            #expect(bob == "Bob Chen")
            let first: WireUser = try await api.users.all[0].resolved()
            #expect(first.id == "123")
            let current: WireUser = try await api.users.current
            #expect(current.profile.displayName == "Alice Martin")
            let handle: String = try await api.users["abc-123"].profile.displayName
            #expect(handle == "Bob Chen")
            func user(_ id: String) -> Ref<Any> { api.users[id] }
            let bobUser: WireUser = try await user("abc-123").resolved()
            #expect(bobUser.email == "bob@example.com")
            let renamed: WireUser = try await user("abc-123").update("Robert Chen").resolved()
            #expect(renamed.name == "Robert Chen")
            let posts: [[String: String]] = try await user("123").posts.list(2).resolved()
            #expect(posts.count == 2)
        }
    }

    @Test("a bad token rejects with AuthenticationError, and refs pipelined on it break with it")
    func authentication() async throws {
        try await withTodoSession { api, _ in
            func login() -> Ref<Any> { api.authenticate("wrong") }
            let authed = login()
            func ref15() -> Ref<Any> { authed }
            #expect(await rejection(ref15())?.name == "AuthenticationError")
            func ref16() -> Ref<Any> { authed.currentUser.profile.displayName }
            #expect(await rejection(ref16())?.name == "AuthenticationError")
        }
    }

    @Test("a pipelined ref passed as an argument is resolved on the server")
    func refAsArgument() async throws {
        try await withTodoSession { api, _ in
            func currentUserID() -> Ref<Any> { api.authenticate("demo-token").currentUser.id }
            let profile: WireUser.Profile = try await api.profiles.forUser(currentUserID())
            #expect(profile.userId == "abc-123")
        }
    }

    @Test("map over users.list() runs profiles.forUser on the server, in one pull")
    func serverSideMap() async throws {
        try await withTodoSession { api, server in
            server.resetTraffic()
            // Refs are built in synchronous functions: in an async context Swift prefers Ref's
            // awaiting overloads (Ref is Decodable), which would resolve each step separately.
            func profiles() -> Ref<[Any]> {
                api.users.list().map { user in api.profiles.forUser(user.id) }
            }
            let names: [WireUser.Profile] = try await profiles().resolved()
            #expect(names.map(\.displayName) == ["Alice Martin", "Bob Chen", "Carol Diaz"])
            #expect(server.traffic.pulls == 1)
        }
    }

    @Test("notifications.subscribe() streams a notification for each new todo and closes with the reader")
    func notificationStream() async throws {
        let store = TodoStore()
        try await withTodoSession(store: store) { api, _ in
            do {
                let stream: AsyncThrowingStream<WireNotification, any Error> = try await api.notifications.subscribe()
                #expect(await waitUntil { store.subscriberCount == 1 })
                let _: WireTodo = try await api.todos.create("First")
                let _: WireTodo = try await api.todos.create("Second")
                var received: [String] = []
                for try await notification in stream {
                    received.append(notification.body)
                    if received.count == 2 { break }
                }
                #expect(received == ["Todo 4 created: First", "Todo 5 created: Second"])
            }
            // A reader that stops early does not tell the writer (see `finishStreams`), so the
            // server ends its streams for the tables to drain.
            store.finishStreams()
            #expect(await waitUntil { store.subscriberCount == 0 })
            let unread: [WireNotification] = try await api.notifications.unread(10)
            #expect(unread.count == 4)
            let marked: [String: Int] = try await api.notifications.markAllRead()
            #expect(marked == ["updated": 4])
            let recent: [WireNotification] = try await api.notifications.recent(2)
            #expect(recent.count == 2 && recent.allSatisfy(\.isRead))
        }
    }

    @Test("a chat room's messages stream carries what send sends, and logs.stream replays kept entries")
    func chatAndLogs() async throws {
        struct Message: Decodable, Sendable { var text: String }
        struct LogEntry: Decodable, Sendable { var level: String; var message: String }
        let store = TodoStore()
        try await withTodoSession(store: store) { api, _ in
            do {
                func join() -> Ref<Any> { api.chat.join("general") }
                func messages(_ room: Ref<Any>) -> Ref<Any> { room.messages }
                let room = join()
                guard case .readable(let readable) = try await messages(room).payload() else {
                    Issue.record("messages is a stream")
                    return
                }
                let messages = readable.decoded(as: Message.self)
                let _: Message = try await room.send("Hello everyone!")
                let _: Message = try await room.send("How's it going?")
                var texts: [String] = []
                for try await message in messages {
                    texts.append(message.text)
                    if texts.count == 2 { break }
                }
                #expect(texts == ["Hello everyone!", "How's it going?"])
            }
            func ref17() -> Ref<Any> { api.users.get("ghost") }
            #expect(await rejection(ref17())?.name == "NotFound")
            func ref18() -> Ref<Any> { api.authenticate("nope") }
            _ = await rejection(ref18())
            do {
                let logs: AsyncThrowingStream<LogEntry, any Error> = try await api.logs.stream("error")
                for try await entry in logs {
                    #expect(entry.level == "error")
                    #expect(entry.message == "authentication failed")
                    break
                }
            }
            store.finishStreams()
            #expect(await waitUntil { store.subscriberCount == 0 })
        }
    }

    @Test("the onboarding workflow pipelines from invitation to welcome email")
    func workflow() async throws {
        struct Result: Decodable, Sendable { var user: WireUser; var profile: WireUser.Profile }
        struct Invitation: Decodable, Sendable { var code: String; var email: String }
        try await withTodoSession { api, server in
            server.resetTraffic()
            let result: Result = try await api.invitations.create("dana@example.com")
                .waitForAcceptance().createDefaultProfile().sendWelcomeEmail().result
            #expect(result.user.email == "dana@example.com" && result.profile.userId == result.user.id)
            #expect(server.traffic.pulls == 1)

            let invitation: Invitation = try await api.invitations.create("eve@example.com")
            let user: WireUser = try await api.users.waitForRegistration(invitation.code, 3600)
            #expect(user.name == "eve")
            struct Sent: Decodable, Sendable { var sent: Bool; var to: String }
            let sent: Sent = try await api.emails.sendWelcome(user.id)
            #expect(sent.sent && sent.to == "eve@example.com")
        }
    }

    @Test("restart drops every session, keeps the port and the data, and accepts new sessions")
    func restart() async throws {
        try await TodoServer.withServer { server in
            let port = server.port
            #expect(port > 0)
            let first = try await RpcSession<Any>.connect(to: server.webSocketURL)
            let created: WireTodo = try await first.api.todos.create("Survive a restart")
            #expect(await waitUntil { server.sessions.count == 1 })
            try await server.restart(downtime: .milliseconds(50))
            #expect(server.port == port)
            #expect(server.restarts == 1)
            func list() -> Ref<Any> { first.api.todos.list() }
            let lost = await list().settle()
            if case .failed(.connectionLost) = lost {} else { Issue.record("the old session lost its connection: \(lost)") }
            await first.close()

            let second = try await RpcSession<Any>.connect(to: server.webSocketURL)
            let again: WireTodo = try await second.api.todos.get(created.id)
            #expect(again == created)
            #expect(server.traffic.connections == 2)
            await second.close()
        }
    }

    @Test("a restart asked for after the server stopped fails with CancellationError instead of waiting")
    func restartAfterStop() async throws {
        let stopped = try await TodoServer.withServer { server in server }
        await #expect(throws: CancellationError.self) {
            try await stopped.restart()
        }
        #expect(stopped.sessions.isEmpty)
    }

    @Test("an HTTP batch answers a pipelined chain in one request")
    func httpBatch() async throws {
        try await TodoServer.withServer { server in
            // A generous quiet time keeps the chain in one batch on a loaded machine.
            let name: String = try await RpcSession<Any>.batch(
                url: server.batchURL, configure: { $0.batchDelay = .milliseconds(200) }
            ) { api in
                try await api.users.get("456").profile.displayName
            }
            #expect(name == "Carol Diaz")
        }
    }
}
