#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import RpcDo
import CapnWeb
import RpcDoTodo
import RpcTransport

/// `make demo`: the Todo API served in-process on loopback, and an RpcDo client that shows
/// pipelining, parallel calls, a server-side map, a stream, a server restart and a rate limit.
enum Demo {
    /// How many `todos.search` calls the server allows per window, and the window.
    static let rateLimit = RateLimit(calls: 2, window: .milliseconds(1500))
    /// How long the server stays down during the restart step.
    static let downtime = Duration.milliseconds(400)
    /// The longest the demo waits for the client to reconnect.
    static let reconnectDeadline = Duration.seconds(20)

    /// Runs every step; throws on the first that fails.
    static func run() async throws {
        let started = ContinuousClock.now
        let store = TodoStore(rateLimit: rateLimit)
        var serverConfiguration = TodoServerConfiguration()
        let retryAfters = RetryAfterLog()
        serverConfiguration.session.trace = { sent, text in
            if sent { retryAfters.record(frame: text) }
        }
        try await TodoServer.withServer(configuration: serverConfiguration, store: store) { server in
            print("RpcDo demo: the seed's Todo API, served by a Cap'n Web server in this process")
            print("  server: \(server.webSocketURL.absoluteString) (WebSocket) and \(server.batchURL.absoluteString) (HTTP batch)")
            var configuration = RpcClientConfiguration(
                url: server.webSocketURL, timeout: 10, maxRetries: 3, retryBaseDelay: 0.05, maxRetryDelay: 3)
            configuration.reconnect = ReconnectPolicy(maxAttempts: 20, backoff: .exponential(base: .milliseconds(50), max: .milliseconds(500)))
            let client = RpcClient(configuration: configuration)
            try await client.connect()
            print("  client: connected = \(await client.isConnected)")
            var out = DemoOutput(totalSteps: 7)
            do {
                try await pipelining(client, server, &out)
                try await parallelCalls(client, server, &out)
                try await serverSideMap(client, server, &out)
                try await streaming(client, server, &out)
                try await restart(client, server, &out)
                try await rateLimited(client, server, retryAfters, &out)
                try await typedErrors(client, server, &out)
            } catch {
                await client.disconnect()
                throw error
            }
            await client.disconnect()
        }
        print("\ndemo: done in \((ContinuousClock.now - started).readable)")
    }

    // MARK: Steps

    static func pipelining(_ client: RpcClient, _ server: TodoServer, _ out: inout DemoOutput) async throws {
        out.step("Promise pipelining: a chain of calls in one round trip")
        let ref: RpcRef<Any> = client.api.users.get(id: "123").profile.displayName
        server.resetTraffic()
        let name: String = try await ref.resolved()
        var traffic = server.traffic
        out.line("\(ref.expressionString)  ->  \"\(name)\"")
        out.line("the server received \(traffic.pushes) pushes and \(plural(traffic.pulls, "pull")): \(plural(traffic.pulls, "round trip")) for 1 call and 2 member reads")

        server.resetTraffic()
        let avatar: String = try await client.api.authenticate(token: "secret").currentUser.profile.avatar.url
        traffic = server.traffic
        out.line(".authenticate(token: \"secret\").currentUser.profile.avatar.url  ->  \(avatar)  (\(plural(traffic.pulls, "round trip")))")

        server.resetTraffic()
        let user: User = try await client.api.users.get(id: "123")
        let profile: Profile = try await client.api.profiles.forUser(userId: user.id)
        traffic = server.traffic
        out.line("the same data awaited step by step (user, then profile \"\(profile.displayName)\"): \(plural(traffic.pulls, "round trip"))")
    }

    static func parallelCalls(_ client: RpcClient, _ server: TodoServer, _ out: inout DemoOutput) async throws {
        out.step("Parallel calls with async let")
        server.resetTraffic()
        let clock = ContinuousClock()
        let started = clock.now
        async let user: User = client.api.users.current
        async let unread: [AppNotification] = client.api.notifications.unread(limit: 10)
        async let stats: DashboardStats = client.api.analytics.dashboard
        async let todos: [Todo] = client.api.todos.list()
        let (u, n, s, t) = try await (user, unread, stats, todos)
        let elapsed = clock.now - started
        out.line("users.current              ->  \(u.name) <\(u.email)>")
        out.line("notifications.unread(10)   ->  \(plural(n.count, "notification")): \(n.map(\.title).joined(separator: ", "))")
        out.line("analytics.dashboard        ->  \(s.todos) todos (\(s.completed) done), \(s.users) users")
        out.line("todos.list()               ->  \(t.map { "\($0.completed ? "[x]" : "[ ]") \($0.title)" }.joined(separator: "  "))")
        out.line("4 calls in flight together over one connection, all answered in \(elapsed.readable)")
    }

    static func serverSideMap(_ client: RpcClient, _ server: TodoServer, _ out: inout DemoOutput) async throws {
        out.step("map { } runs on the server: no N+1 round trips")
        server.resetTraffic()
        let profiles: [Profile] = try await client.api.users.list().map { user in
            client.api.profiles.forUser(userId: user.id)
        }
        let traffic = server.traffic
        out.line("users.list().map { user in api.profiles.forUser(userId: user.id) }")
        out.line("  ->  \(profiles.map(\.displayName).joined(separator: ", "))")
        out.line("\(plural(profiles.count, "profile")) fetched in \(plural(traffic.pulls, "round trip"))")
    }

    static func streaming(_ client: RpcClient, _ server: TodoServer, _ out: inout DemoOutput) async throws {
        out.step("A streamed subscription: notifications.subscribe()")
        let stream: AsyncThrowingStream<AppNotification, any Error> = try await client.api.notifications.subscribe()
        let titles = ["Plan the sprint", "Review the pull request", "Release 1.0"]
        for title in titles {
            let todo: Todo = try await client.api.todos.create(title: title)
            out.line("todos.create(title: \"\(title)\")  ->  todo \(todo.id)")
        }
        var received = 0
        for try await notification in stream {
            out.line("  streamed: \(notification.title): \(notification.body)")
            received += 1
            if received == titles.count { break }
        }
        // The server ends its streams: a reader that stops does not tell the writer.
        server.store.finishStreams()
        out.line("\(plural(received, "notification")) arrived as the todos were created")
    }

    static func restart(_ client: RpcClient, _ server: TodoServer, _ out: inout DemoOutput) async throws {
        out.step("The server restarts; the client reconnects and carries on")
        let states = client.connectionStates
        let watcher = Task {
            var seen: [String] = []
            var lost = false
            for await state in states {
                let text = "\(state)"
                if seen.last != text { seen.append(text) }
                if !state.isConnected { lost = true }
                if lost, state.isConnected { break }
            }
            return seen
        }
        let port = server.port
        let restart = Task { try await server.restart(downtime: downtime) }
        try await awaitConnection(client, connected: false)
        out.line("server stopped (port \(port)); it comes back in \(downtime.readable)")
        let clock = ContinuousClock()
        let started = clock.now
        let todos: [Todo] = try await client.api.todos.list()
        let waited = clock.now - started
        try await restart.value
        try await awaitConnection(client, connected: true)
        watcher.cancel()
        let seen = await watcher.value
        out.line("connection states: \(seen.joined(separator: " -> "))")
        out.line("a todos.list() made while offline waited \(waited.readable), then returned \(plural(todos.count, "todo")) (the data survived)")
        let created: Todo = try await client.api.todos.create(title: "Carry on after the restart")
        out.line("todos.create after the restart  ->  todo \(created.id); the server restarted \(plural(server.restarts, "time")) on port \(server.port)")
    }

    static func rateLimited(_ client: RpcClient, _ server: TodoServer, _ retryAfters: RetryAfterLog, _ out: inout DemoOutput) async throws {
        out.step("A rate-limited call, retried after the server's retryAfter")
        out.line("todos.search allows \(rateLimit.calls) calls per \(rateLimit.window.readable)")
        server.resetTraffic()
        let clock = ContinuousClock()
        for (index, query) in ["milk", "release", "sprint"].enumerated() {
            let started = clock.now
            let found: [Todo] = try await client.api.todos.search(query: query)
            let elapsed = clock.now - started
            let rejected = server.traffic.rejects
            let hint = retryAfters.last.map { " (retryAfter \($0) s)" } ?? ""
            let note = rejected > 0
                ? "the server answered RateLimitExceeded\(hint); RpcDo waited that long and retried"
                : "answered at once"
            out.line("search #\(index + 1) (\"\(query)\")  ->  \(plural(found.count, "todo")) after \(elapsed.readable): \(note)")
        }
    }

    static func typedErrors(_ client: RpcClient, _ server: TodoServer, _ out: inout DemoOutput) async throws {
        out.step("Remote errors arrive as typed RpcError cases")
        do {
            let _: User = try await client.api.users.get(id: "nobody")
            throw DemoFailure("users.get(id: \"nobody\") should have failed")
        } catch let error as RpcDo.RpcError {
            guard case .notFound(let detail) = error else { throw error }
            out.line("users.get(id: \"nobody\")  ->  RpcError.notFound(\"\(detail)\")")
        }
        do {
            let _: String = try await client.api.authenticate(token: "wrong").currentUser.name
            throw DemoFailure("authenticate(token: \"wrong\") should have failed")
        } catch let error as RpcDo.RpcError {
            guard case .authenticationFailed(let detail) = error else { throw error }
            out.line("authenticate(token: \"wrong\").currentUser.name  ->  RpcError.authenticationFailed(\"\(detail)\")")
        }
    }

    // MARK: Helpers

    /// Waits until the client's connection is (or is not) connected, from its state stream.
    static func awaitConnection(_ client: RpcClient, connected: Bool) async throws {
        let states = client.connectionStates
        let reached = try await Deadline.race(reconnectDeadline) { () async -> Bool in
            for await state in states where state.isConnected == connected { return true }
            return false
        }
        guard reached == true else {
            throw DemoFailure("the client did not become \(connected ? "connected" : "disconnected") in \(reconnectDeadline.readable)")
        }
    }
}

/// A step that did not do what it shows.
struct DemoFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
