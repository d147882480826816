#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Observation
import Synchronization
import RpcDo
import RpcDoTodo
import RpcTesting
import Testing

// Seed: Best Practices, "SwiftUI State Management".
// Adapted: `Item` is the demo server's `Todo`; the view model holds the client it loads from,
// and the seed's `// ...` is the load itself; the class is `@MainActor` as a whole, which is
// what lets Swift 6 accept the `@MainActor` method writing its properties.

typealias Item = Todo

// DO: Use @Observable for view models
@MainActor
@Observable
final class MyViewModel {
    var data: [Item] = []
    var isLoading = false
    let client: RpcClient  // Added: where the data comes from.

    init(client: RpcClient) {  // Added.
        self.client = client
    }

    // DO: Mark UI-updating methods with @MainActor
    @MainActor
    func load() async {
        isLoading = true
        defer { isLoading = false }
        // ...
        data = (try? await client.api.todos.list()) ?? []  // Added: the load.
    }

    // DON'T: Update UI from background thread
    // The seed's counter-example is not replayed: in Swift 6 a nonisolated `func load() async`
    // that writes `isLoading` of this `@MainActor` class does not compile ("main actor-isolated
    // property 'isLoading' can not be mutated from a nonisolated context"), so the crash it
    // warns about cannot happen.
}

// Seed: Troubleshooting, "SwiftUI Issues".
// Adapted: the seed's class has no `client` or `data`; they are added, with `data`'s type.
@MainActor
@Observable
final class ViewModel {
    let client: RpcClient  // Added.
    var data: DataSummary?  // Added.

    init(client: RpcClient) {  // Added.
        self.client = client
    }

    @MainActor
    func update() async {
        // This will trigger SwiftUI updates
        self.data = try? await client.api.getData()
    }
}

/// Counts the changes Observation reports for what `read` reads (what SwiftUI re-renders on).
@MainActor
final class ChangeCounter {
    private(set) var changes = 0

    func track(_ read: @escaping @MainActor () -> Void) {
        withObservationTracking {
            read()
        } onChange: { [weak self] in
            Task { @MainActor in
                self?.changes += 1
                self?.track(read)
            }
        }
    }
}

/// The seed's Best Practices "SwiftUI State Management" and "Cancellation" examples, and the
/// Troubleshooting "SwiftUI Issues" example, on Observation (the SwiftUI-free core).
@Suite("Seed examples: best practices for state and cancellation")
@MainActor
struct BestPracticesStateExamples {
    @Test("an @Observable view model loads on the main actor, and observers see data and isLoading change")
    func stateManagement() async throws {
        try await withDemoServer { url, _ in
            let client = try RpcClient(url: url)
            try await client.connect()
            let viewModel = MyViewModel(client: client)
            let counter = ChangeCounter()
            counter.track { _ = (viewModel.data, viewModel.isLoading) }

            await viewModel.load()
            #expect(viewModel.data.count == 3)
            #expect(viewModel.isLoading == false)
            // isLoading went true and back, and data changed: observers were told.
            #expect(await waitUntil { counter.changes >= 2 })

            let troubleshooting = ViewModel(client: client)
            await troubleshooting.update()
            #expect(troubleshooting.data?.users == 3)
            await client.disconnect()
        }
    }

    @Test("a loop that checks for cancellation stops when its task is cancelled, and the server's stream closes")
    func respectCancellation() async throws {
        try await withDemoServer { url, server in
            let client = try RpcClient(url: url)
            try await client.connect()
            let stream: AsyncThrowingStream<Event, any Error> = try await client.api.events.subscribe(topic: "updates")
            let processed = Counter()
            func process(_ item: Event) { processed.increment() }

            let task = Task {
                // DO: Respect task cancellation
                for try await item in stream {
                    try Task.checkCancellation()
                    process(item)
                }
            }
            let _: Event = try await client.api.events.publish(topic: "updates", type: "first", payload: "")
            #expect(await waitUntil { processed.value == 1 })
            task.cancel()
            let outcome = await task.result
            // The loop ended: either at the check or because the cancelled stream finished.
            if case .failure(let error) = outcome { #expect(error is CancellationError) }
            #expect(await serverClosesStreams(server) {
                let _: Event = try await client.api.events.publish(topic: "updates", type: "later", payload: "")
            })
            #expect(processed.value == 1)
            await client.disconnect()
        }
    }

    @Test("start listening in .task and stop on disappear: the view model's stream ends on the server too")
    func cancelOnDisappear() async throws {
        try await withDemoServer { url, server in
            let client = try RpcClient(url: url)
            try await client.connect()
            let viewModel = NotificationViewModel(client: client)

            // DO: Cancel subscriptions on view disappear
            // Adapted: what `.task { viewModel.startListening() }` and
            // `.onDisappear { viewModel.stopListening() }` run, called as a view's life would.
            viewModel.startListening()  // .task
            #expect(await waitUntil { server.store.subscriberCount == 1 })
            viewModel.stopListening()  // .onDisappear

            // The next notification is rejected by the stopped reader, and the server closes
            // its end.
            #expect(await serverClosesStreams(server) {
                let _: Notification = try await client.api.notifications.send(title: "Late", body: "nobody listens")
            })
            await client.disconnect()
        }
    }
}

/// A counter shared with a task.
final class Counter: Sendable {
    private let count = Mutex(0)
    var value: Int { count.withLock { $0 } }
    func increment() { count.withLock { $0 += 1 } }
}
