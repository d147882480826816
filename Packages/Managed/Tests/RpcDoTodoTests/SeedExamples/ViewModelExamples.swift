// Foundation itself (not only FoundationEssentials): `localizedDescription` lives there, and
// `import SwiftUI` in the seed brings it.
import Foundation
import Observation
import RpcDo
import RpcDoTodo
import RpcTesting
import Testing

// Seed: "SwiftUI Integration", the two `@Observable` view models (the views are left out).
// Adapted: `import SwiftUI` became `import Observation`; the classes are `@MainActor` so that
// Swift 6 accepts their tasks and `@MainActor` methods; `Error` is written `any Error`.

@MainActor
@Observable
final class UserListViewModel {
    private let client: RpcClient

    var users: [User] = []
    var isLoading = false
    var error: RpcError?

    init(client: RpcClient) {
        self.client = client
    }

    @MainActor
    func load() async {
        isLoading = true
        error = nil
        defer { isLoading = false }

        do {
            users = try await client.api.users.list()
        } catch let rpcError as RpcError {
            self.error = rpcError
        } catch {
            self.error = .remote(type: "Unknown", message: error.localizedDescription)
        }
    }

    @MainActor
    func createUser(name: String, email: String) async throws -> User {
        let user: User = try await client.api.users.create(
            name: name,
            email: email
        )
        users.insert(user, at: 0)
        return user
    }

    @MainActor
    func deleteUser(_ user: User) async throws {
        try await client.api.users.delete(id: user.id)
        users.removeAll { $0.id == user.id }
    }
}

@MainActor
@Observable
final class NotificationViewModel {
    private let client: RpcClient
    private var subscriptionTask: Task<Void, Never>?

    var notifications: [Notification] = []
    var unreadCount: Int { notifications.filter { !$0.isRead }.count }
    var connectionState: ConnectionState = .disconnected

    enum ConnectionState {
        case disconnected
        case connecting
        case connected
        case error(any Error)
    }

    init(client: RpcClient) {
        self.client = client
    }

    func startListening() {
        subscriptionTask = Task { [weak self] in
            guard let self else { return }

            await MainActor.run {
                connectionState = .connecting
            }

            do {
                let stream: AsyncThrowingStream<Notification, any Error> =
                    try await client.api.notifications.subscribe()

                await MainActor.run {
                    connectionState = .connected
                }

                for try await notification in stream {
                    await MainActor.run {
                        notifications.insert(notification, at: 0)

                        // Keep only last 100 notifications
                        if notifications.count > 100 {
                            notifications.removeLast()
                        }
                    }
                }
            } catch is CancellationError {
                await MainActor.run {
                    connectionState = .disconnected
                }
            } catch {
                await MainActor.run {
                    connectionState = .error(error)
                }
            }
        }
    }

    func stopListening() {
        subscriptionTask?.cancel()
        subscriptionTask = nil
    }

    @MainActor
    func markAllRead() async throws {
        try await client.api.notifications.markAllRead()

        for i in notifications.indices {
            notifications[i].isRead = true
        }
    }
}

@Suite("Seed examples: view models")
struct ViewModelExamples {
    @Test("UserListViewModel loads, creates and deletes users")
    @MainActor
    func userList() async throws {
        try await withDemoServer { url, _ in
            let client = try RpcClient(url: url)
            try await client.connect()
            let viewModel = UserListViewModel(client: client)
            await viewModel.load()
            #expect(viewModel.users.map(\.id) == ["123", "abc-123", "456"])
            #expect(viewModel.error == nil && !viewModel.isLoading)
            let user = try await viewModel.createUser(name: "Grace", email: "grace@example.com")
            #expect(viewModel.users.first?.id == user.id)
            try await viewModel.deleteUser(user)
            await viewModel.load()
            #expect(viewModel.users.count == 3)
            await client.disconnect()
        }
    }

    @Test("NotificationViewModel receives streamed notifications and marks them read")
    @MainActor
    func notifications() async throws {
        try await withDemoServer { url, server in
            let client = try RpcClient(url: url)
            try await client.connect()
            let viewModel = NotificationViewModel(client: client)
            viewModel.startListening()
            #expect(await waitUntil { server.store.subscriberCount == 1 })
            let _: Notification = try await client.api.notifications.send(title: "Build passed", body: "main is green")
            #expect(await waitUntil { viewModel.notifications.count == 1 })
            #expect(viewModel.unreadCount == 1)
            if case .connected = viewModel.connectionState {} else { Issue.record("connected while listening") }
            try await viewModel.markAllRead()
            #expect(viewModel.unreadCount == 0)
            viewModel.stopListening()
            server.store.finishStreams()
            await client.disconnect()
        }
    }
}
