import CapnWebMacros
import CapnWebTesting
import Testing
import CapnWebSocketTestSupport

/// The seed's typed examples end to end over 127.0.0.1: a typed `TodoAPI` client against the
/// `@Rpc` Todo services, and the untyped client answered identically by the `@Rpc` services and
/// hand-written ones. Every test ends with both sides' tables at `{imports: 1, exports: 1}`.
@Suite("Seed Todo API, typed")
struct SeedTodoTests {
    @Test("session.api of RpcSession<TodoAPIStub> is typed: list(filter:), get(id:), create(title:) and a subscript reach the @Rpc services")
    func typedClient() async throws {
        let store = SeedTodoStore()
        try await withSocketSession(as: TodoAPIStub.self, main: { _ in MacroTodoRoot(store: store) }) { (session: RpcSession<TodoAPIStub>, _) in
            let active = try await session.api.todos.list(filter: .active)
            #expect(active.map(\.id) == ["1"])
            let all = try await session.api.todos.list(filter: nil)
            #expect(all.count == 2)
            let second = try await session.api.todos.get(id: "2")
            #expect(second.title == "test them")
            let created = try await session.api.todos.create(title: "ship")
            #expect(created == Todo(id: "3", title: "ship", completed: false, authorId: "u1"))
            let author = try await session.api.todos["2"].author
            #expect(try await author.name == "Grace")
            #expect(try await session.api.todos["1"].author.get() == User(id: "u1", name: "Ada"))
            let updated = try await session.api.todos["1"].update(completed: true)
            #expect(updated.completed)
            try await session.api.todos["1"].delete()
            #expect(try await session.api.todos.list(filter: nil).map(\.id) == ["2", "3"])
            #expect(try await session.api.users.name == "Ada")
        }
    }

    @Test("a capability returned by a method is typed: authenticate(token:) yields AuthenticatedAPI, a wrong token rejects")
    func authenticate() async throws {
        let store = SeedTodoStore()
        try await withSocketSession(as: TodoAPIStub.self, main: { _ in MacroTodoRoot(store: store) }) { session, _ in
            let authed = try await session.api.authenticate(token: "secret")
            #expect(try await authed.currentUser == User(id: "u2", name: "Grace"))
            #expect(try await authed.todos.get(id: "1").title == "write the macros")
            let denied = try await session.api.authenticate(token: "wrong")
            await #expect(throws: RpcError.self) { try await denied.currentUser }
            do {
                _ = try await denied.currentUser
            } catch RpcError.remote(let type, let message) {
                #expect(type == "AuthError")
                #expect(message == "bad token")
            }
        }
    }

    @Test("a wrong argument count or type rejects with a TypeError naming the method and the argument; private and underscore members are not reachable")
    func argumentErrorsAndHiddenMembers() async throws {
        let store = SeedTodoStore()
        try await withSocketSession(as: Any.self, main: { _ in MacroTodoRoot(store: store) }) { session, _ in
            let todos: Ref<Any> = session.api["todos"]
            let outcomes = [
                await todos["get"].call([5]).settle(),
                await todos["get"].call([]).settle(),
                await todos["create"].call(["a", "b"]).settle(),
                await todos["purge"].call([]).settle(),
                await todos["_purge"].call([]).settle(),
                await todos["store"].settle(),
            ]
            let described = outcomes.map(Self.describe)
            #expect(described[0].hasPrefix("rejected TypeError: get: argument 0 'id' is not a valid String"))
            #expect(described[1] == "rejected TypeError: get: expected 1 argument, got 0")
            #expect(described[2] == "rejected TypeError: create: expected 1 argument, got 2")
            #expect(described[3].hasPrefix("rejected TypeError"))
            #expect(described[4].hasPrefix("rejected TypeError"))
            // `todos` answers unknown names through its subscript, as the seed's `todos["123"]`:
            // a private stored property is never read.
            #expect(described[5].hasPrefix("resolved"))
            #expect(store.list(nil).count == 2, "nothing was purged")
        }
    }

    @Test("every stub exposes its Ref for dynamic calls")
    func stubExposesRef() async throws {
        let store = SeedTodoStore()
        try await withSocketSession(as: TodoAPIStub.self, main: { _ in MacroTodoRoot(store: store) }) { session, _ in
            let todos = try await session.api.todos
            let stub = try #require(todos as? TodoServiceStub)
            let todo: Todo = try await stub.ref.get("2")
            #expect(todo.id == "2")
        }
    }

    @Test("the @Rpc services answer the untyped client exactly as the hand-written ones do")
    func macroAnswersLikeHandWritten() async throws {
        let macro = try await transcript(main: { store in MacroTodoRoot(store: store) })
        let hand = try await transcript(main: { store in HandTodoRoot(store: store) })
        #expect(macro == hand)
        #expect(macro.count == 12)
    }

    /// The outcomes of one script of untyped calls against a fresh store served by `main`.
    private func transcript(main: @escaping @Sendable (SeedTodoStore) -> any RpcTarget) async throws -> [String] {
        let store = SeedTodoStore()
        var outcomes: [String] = []
        try await withSocketSession(as: Any.self, main: { _ in main(store) }) { session, _ in
            let api = session.api
            // One step at a time: each is made and settled before the next is sent.
            let steps: [() -> Ref<Any>] = [
                { api["todos"]["list"].call(["active"]) },
                { api["todos"]["list"].call([]) },
                { api["todos"]["get"].call(["1"]) },
                { api["todos"]["create"].call(["ship"]) },
                { api["todos"]["3"]["get"].call([]) },
                { api["todos"]["3"]["update"].call([true]) },
                { api["todos"]["3"]["author"]["name"] },
                { api["todos"]["2"]["author"]["get"].call([]) },
                { api["todos"]["3"]["delete"].call([]) },
                { api["todos"]["list"].call([]) },
                { api["authenticate"].call(["secret"])["currentUser"] },
                { api["users"]["name"] },
            ]
            for step in steps {
                outcomes.append(Self.describe(await step().settle()))
            }
        }
        return outcomes
    }

    private static func describe(_ outcome: RpcOutcome) -> String {
        switch outcome {
        case .resolved(let value): "resolved \(value)"
        case .rejected(let error): "rejected \(error.name): \(error.message)"
        case .failed(let error): "failed \(error)"
        }
    }
}
