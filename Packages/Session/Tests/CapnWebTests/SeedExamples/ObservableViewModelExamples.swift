import Foundation
import Synchronization
import Observation
import Testing
import CapnWebSocketTestSupport
import RpcTransportTesting
import CapnWeb
#if canImport(SwiftUI)
import SwiftUI
#endif

// Swift spelling: this package builds with the ExistentialAny upcoming feature, so the seed's
// `Error` as a type is written `any Error` (marked where it occurs).

// Seed 001's "SwiftUI Integration": its view models on Observation, tested here without a
// view; the seed's views are compiled where SwiftUI exists (behind `#if canImport(SwiftUI)`).

// Adapted: `@MainActor` added. The seed is written for Swift 5.9; in Swift 6 a class whose
// state SwiftUI views read and whose tasks update it must be isolated to the main actor.
@MainActor
@Observable
final class TodoListViewModel {
    private let session: RpcSession<TodoAPI>

    var todos: [Todo] = []
    var isLoading = false
    var error: (any Error)?  // Adapted: `any Error` (this package builds with ExistentialAny).

    init(session: RpcSession<TodoAPI>) {
        self.session = session
    }

    func load() async {
        isLoading = true
        defer { isLoading = false }

        do {
            todos = try await session.api.todos.list()
        } catch {
            self.error = error
        }
    }

    @discardableResult  // Adapted: the seed's view ignores the result, which Swift warns about.
    func create(title: String) async throws -> Todo {
        // Adapted: the result's type is written (an untyped `let todo = try await` is a ref).
        let todo: Todo = try await session.api.todos.create(title: title)
        todos.insert(todo, at: 0)
        return todo
    }

    func toggle(_ todo: Todo) async throws {
        // Adapted: the result's type is written.
        let updated: Todo = try await session.api
            .todos[todo.id]
            .update(completed: !todo.completed)

        if let index = todos.firstIndex(where: { $0.id == todo.id }) {
            todos[index] = updated
        }
    }
}

// Adapted: `@MainActor` added, as for `TodoListViewModel`; with it the seed's
// `await MainActor.run { … }` blocks are kept as written.
@MainActor
@Observable
final class NotificationViewModel {
    private let session: RpcSession<API>
    private var streamTask: Task<Void, Never>?

    var notifications: [Notification] = []
    var connectionState: ConnectionState = .disconnected

    init(session: RpcSession<API>) {
        self.session = session
    }

    func startListening() {
        streamTask = Task {
            do {
                let stream: AsyncThrowingStream<Notification, any Error> =  // Adapted: `any Error`.
                    try await session.api.notifications.subscribe(topic: "updates")

                for try await notification in stream {
                    await MainActor.run {
                        notifications.insert(notification, at: 0)
                    }
                }
            } catch {
                await MainActor.run {
                    connectionState = .error(error)
                }
            }
        }
    }

    func stopListening() {
        streamTask?.cancel()
        streamTask = nil
    }

    // Adapted: for the test to wait for the listening task to end.
    func finished() async { await streamTask?.value }
}

#if canImport(SwiftUI)
// The seed's views. They compile only where SwiftUI exists (not on the Linux machines the
// suite runs on); their logic is the view model above, which the tests below drive on every
// platform.
struct TodoListView: View {
    @State private var viewModel: TodoListViewModel
    @State private var newTodoTitle = ""

    init(session: RpcSession<TodoAPI>) {
        _viewModel = State(initialValue: TodoListViewModel(session: session))
    }

    var body: some View {
        List {
            Section {
                HStack {
                    TextField("New todo", text: $newTodoTitle)
                    Button("Add") {
                        Task {
                            try await viewModel.create(title: newTodoTitle)
                            newTodoTitle = ""
                        }
                    }
                    .disabled(newTodoTitle.isEmpty)
                }
            }

            Section {
                ForEach(viewModel.todos) { todo in
                    TodoRow(todo: todo) {
                        Task { try await viewModel.toggle(todo) }
                    }
                }
            }
        }
        .task { await viewModel.load() }
        .overlay {
            if viewModel.isLoading {
                ProgressView()
            }
        }
    }
}

struct TodoRow: View {
    let todo: Todo
    let onToggle: () -> Void

    var body: some View {
        HStack {
            // Adapted: the two styles are different types, so each is wrapped in `AnyShapeStyle`.
            Image(systemName: todo.completed ? "checkmark.circle.fill" : "circle")
                .foregroundStyle(todo.completed ? AnyShapeStyle(.green) : AnyShapeStyle(.secondary))

            Text(todo.title)
                .strikethrough(todo.completed)

            Spacer()
        }
        .contentShape(Rectangle())
        .onTapGesture(perform: onToggle)
    }
}
#endif

@Suite("Seed 001: view models on Observation")
struct ObservableViewModelExamples {
    @Test("TodoListViewModel loads, creates and toggles todos through the session, and Observation sees the changes")
    @MainActor
    func todoListViewModel() async throws {
        try await withSeedServer { server, backend, peers in
            let session = try await RpcSession<TodoAPI>.connect(to: server.webSocketURL)
            let viewModel = TodoListViewModel(session: session)
            let changes = Recorder<Int>()
            withObservationTracking {
                _ = viewModel.todos
            } onChange: {
                changes.append(1)
            }

            await viewModel.load()
            #expect(viewModel.todos.map(\.id) == ["123", "124"])
            #expect(viewModel.isLoading == false)
            #expect(viewModel.error == nil)
            #expect(changes.all == [1])

            let created = try await viewModel.create(title: "Ship it")
            #expect(created.title == "Ship it")
            #expect(viewModel.todos.first == created)

            try await viewModel.toggle(try #require(viewModel.todos.first { $0.id == "123" }))
            #expect(viewModel.todos.first { $0.id == "123" }?.completed == true)
            #expect(backend.calls == ["todos.list", "todos.create", "todo.update"])
            #expect(backend.state.withLock { $0.todos.first { $0.id == "123" }?.completed } == true)

            await peers.expectSettled(session)
            await session.close()

            // Adapted: after the session closed, load() keeps the todos and sets `error`.
            await viewModel.load()
            #expect(viewModel.error is RpcError)
            #expect(viewModel.todos.count == 3)
        }
    }

    @Test("NotificationViewModel inserts each streamed notification first, and reports a failure as .error")
    @MainActor
    func notificationViewModel() async throws {
        try await withSeedServer { server, backend, peers in
            let session = try await RpcSession<API>.connect(to: server.webSocketURL)
            let viewModel = NotificationViewModel(session: session)
            guard case .disconnected(nil) = viewModel.connectionState else {
                Issue.record("expected the seed's initial .disconnected, got \(viewModel.connectionState)")
                return
            }

            viewModel.startListening()
            await viewModel.finished()

            #expect(viewModel.notifications.map(\.id) == ["updates-3", "updates-2", "updates-1"])
            #expect(backend.count("notifications.subscribe") == 1)
            viewModel.stopListening()
            await peers.expectSettled(session)
            await session.close()

            // Adapted: listening on a closed session ends in `.error(error)`.
            let late = NotificationViewModel(session: session)
            late.startListening()
            await late.finished()
            guard case .disconnected(let error?) = late.connectionState, error is RpcError else {
                Issue.record("expected .error(RpcError), got \(late.connectionState)")
                return
            }
        }
    }
}
