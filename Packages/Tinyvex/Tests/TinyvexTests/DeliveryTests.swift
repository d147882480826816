import Dispatch
import Foundation
import RpcDoTesting
import Testing
// The only client import: it must bring the publisher names (`AnyCancellable`, `sink`) on every
// platform.
import Tinyvex

/// The README's "Tinyvex in a minute" snippet, run as written from main-actor code (what
/// top-level code is) and from a `@MainActor` view model, over an in-memory server.
@Suite("Tinyvex delivery: publishers deliver where a main-actor sink is safe", .timeLimit(.minutes(1)))
struct DeliveryTests {
    /// The README's message type, as the snippet declares it.
    struct Message: Codable { var id: Int64; var channel: String; var author: String; var text: String }

    /// Where each callback of a sink ran.
    final class Places: Sendable {
        let recorder = ValueRecorder<(onMain: Bool, texts: [String])>()
    }

    @Test("The README snippet's code runs as written in top-level-like main-actor code: its sink runs on the main actor and sees each value")
    @MainActor
    func readmeSnippetInTopLevelCode() async throws {
        try await withInMemoryServer { server in
            let seen = Places()
            // From here on, the README's snippet; the URL is the in-memory server's, `print`
            // records instead, and the endless stream loop stops at the sent message.
            let client = TinyvexClient(
                endpoint: try #require(URL(string: "memory://tinyvex")), configuration: TinyvexClientConfiguration(), transportFactory: server.factory)
            // A live query: the current value, then each change. Identical subscriptions share one upstream.
            let cancellable = client.subscribe("messages.list", params: ["channel": "general"], as: [Message].self)
                .sink(receiveCompletion: { print($0) }, receiveValue: {
                    MainActor.assertIsolated()
                    dispatchPrecondition(condition: .onQueue(.main))
                    seen.recorder.record((isOnMainQueue(), $0.map(\.text)))
                })
            // When the mutation returns, the subscription above already shows the new message.
            let id = try await client.mutation("messages.send", args: ["channel": "general", "author": "ann", "text": "hi"], as: Int64.self)
            #expect(seen.recorder.values.last?.texts == ["hi"])
            // The same query as an async stream.
            let stream: AsyncThrowingStream<[Message], any Error> = client.subscribe("messages.list", params: ["channel": "general"], as: [Message].self)
            var counts: [Int] = []
            for try await messages in stream {
                counts.append(messages.count)
                if messages.contains(where: { $0.id == id }) { break }
            }
            // End of the snippet.
            #expect(counts.last == 1)
            #expect(seen.recorder.values.isEmpty == false)
            #expect(seen.recorder.values.allSatisfy { $0.onMain })
            cancellable.cancel()
            await client.close()
        }
    }

    /// A view model as an app writes one: main-actor state fed by a `sink`.
    @MainActor
    final class MessagesViewModel {
        private(set) var texts: [String] = []
        private(set) var deliveredOffMain = 0
        private(set) var states: [String] = []
        private var cancellables: [AnyCancellable] = []
        let client: TinyvexClient

        init(client: TinyvexClient) {
            self.client = client
        }

        func start() {
            let messages: AnyPublisher<[Message], TinyvexError> = client.subscribe("messages.list", params: ["channel": "general"], as: [Message].self)
            messages
                .sink(receiveCompletion: { _ in }, receiveValue: { [weak self] messages in
                    MainActor.assertIsolated()
                    self?.received(messages.map(\.text))
                })
                .store(in: &cancellables)
            client.connectionState
                .sink { [weak self] state in
                    MainActor.assertIsolated()
                    self?.received(state: "\(state)")
                }
                .store(in: &cancellables)
        }

        func send(_ text: String) async throws -> Int64 {
            try await client.mutation("messages.send", args: ["channel": "general", "author": "ann", "text": text], as: Int64.self)
        }

        private func received(_ texts: [String]) {
            if !isOnMainQueue() { deliveredOffMain += 1 }
            self.texts = texts
        }

        private func received(state: String) {
            if !isOnMainQueue() { deliveredOffMain += 1 }
            states.append(state)
        }
    }

    @Test("A @MainActor view model's sinks run on the main actor, and a mutation it awaits already shows in its state")
    @MainActor
    func viewModel() async throws {
        try await withInMemoryServer { server in
            let client = TinyvexClient(
                endpoint: try #require(URL(string: "memory://tinyvex")), configuration: TinyvexClientConfiguration(), transportFactory: server.factory)
            let model = MessagesViewModel(client: client)
            model.start()
            for text in ["one", "two", "three"] {
                _ = try await model.send(text)
                // Read-your-writes through the main queue: no waiting needed.
                #expect(model.texts.last == text)
            }
            #expect(model.texts == ["one", "two", "three"])
            #expect(model.states.contains("connected"))
            #expect(model.deliveredOffMain == 0)
            await client.close()
        }
    }

    @Test("A configured serial queue receives the values, the completion and the states instead of the main queue")
    func customQueue() async throws {
        let queue = DispatchQueue(label: "tinyvex.tests.delivery")
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        try await withInMemoryServer { server in
            var configuration = fastConfiguration
            configuration.delivery = .queue(queue)
            let client = try makeClient(server, configuration: configuration)
            let values = ValueRecorder<Bool>()
            let states = ValueRecorder<Bool>()
            let cancellable = client.subscribe("messages.list", params: Channel(channel: "general"), as: [Message].self)
                .sink(receiveCompletion: { _ in values.record(DispatchQueue.getSpecific(key: key) == true) },
                      receiveValue: { _ in values.record(DispatchQueue.getSpecific(key: key) == true) })
            let stateCancellable = client.connectionState.sink { _ in states.record(DispatchQueue.getSpecific(key: key) == true) }
            _ = try await client.mutation("messages.send", args: Send(channel: "general", author: "ann", text: "hi"), as: Int64.self)
            #expect(values.values.count >= 1)
            await client.close()
            try await waitUntil("the completion after close") { values.values.count >= 2 && states.values.count >= 2 }
            #expect(values.values.allSatisfy { $0 })
            #expect(states.values.allSatisfy { $0 })
            cancellable.cancel()
            stateCancellable.cancel()
        }
    }
}

/// Marks the main queue, so that a callback can tell whether it runs there (on Linux the main
/// queue may be served by a thread other than the main thread).
private final class MainQueueMarker: @unchecked Sendable {
    let key = DispatchSpecificKey<Bool>()

    init() {
        DispatchQueue.main.setSpecific(key: key, value: true)
    }
}

private let mainQueueMarker = MainQueueMarker()

/// Whether the caller runs on the main queue.
func isOnMainQueue() -> Bool {
    DispatchQueue.getSpecific(key: mainQueueMarker.key) == true
}
