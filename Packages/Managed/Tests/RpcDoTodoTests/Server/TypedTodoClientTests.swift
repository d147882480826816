import CapnWebMacros
import RpcDoTodo
import RpcTesting
import Testing

/// The Todo API, typed for its client with `@RpcProtocol`.
@RpcProtocol
protocol TypedTodoAPI {
    var todos: any TypedTodosService { get async throws }
    func getData() async throws -> [String: Int]
}

/// `api.todos`.
@RpcProtocol
protocol TypedTodosService {
    func list(_ status: String?) async throws -> [WireTodo]
    func get(_ id: String) async throws -> WireTodo
    func create(_ title: String) async throws -> WireTodo
    @RpcName("delete") func remove(_ id: String) async throws -> WireTodo
    subscript(id: String) -> any TypedTodoHandle { get }
}

/// `api.todos[id]`.
@RpcProtocol
protocol TypedTodoHandle {
    var title: String { get async throws }
    var completed: Bool { get async throws }
    func toggle() async throws -> WireTodo
}

/// A typed client (`@RpcProtocol`) of the Todo server over a WebSocket on 127.0.0.1, ending with
/// both sides back to `{imports: 1, exports: 1}`.
@Suite("Todo server, typed client")
struct TypedTodoClientTests {
    @Test("a typed TodoAPI client lists, creates, reads through todos[id], toggles and deletes, each call typed by its protocol")
    func typedLifecycle() async throws {
        let store = TodoStore()
        try await TodoServer.withServer(store: store) { server in
            let session = try await RpcSession<TypedTodoAPIStub>.connect(to: server.webSocketURL)
            do {
                let api = session.api
                let initial = try await api.todos.list(nil)
                #expect(initial.map(\.title) == ["Buy milk", "Write the demo", "Ship it"])
                let active = try await api.todos.list("active")
                #expect(active.count == 2 && active.allSatisfy { !$0.completed })
                let created = try await api.todos.create("Write typed tests")
                #expect(try await api.todos.get(created.id) == created)
                #expect(try await api.todos[created.id].title == "Write typed tests")
                let toggled = try await api.todos[created.id].toggle()
                #expect(toggled.completed)
                #expect(try await api.todos[created.id].completed)
                let deleted = try await api.todos.remove(created.id)
                #expect(deleted.id == created.id)
                #expect(try await api.getData()["todos"] == 3)
            } catch {
                await session.close()
                throw error
            }
            let clean = RpcStats(imports: 1, exports: 1)
            #expect(await waitUntil { session.getStats() == clean }, "client stats")
            #expect(await waitUntil { server.sessions.allSatisfy { $0.getStats() == clean } }, "server stats")
            await session.close()
        }
    }
}
