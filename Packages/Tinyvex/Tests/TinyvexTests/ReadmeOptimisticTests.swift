import Foundation
import RpcDoTesting
import Synchronization
import Testing
// The only client import, as in the README.
import Tinyvex
import TinyvexServer

/// The README's optimistic update and token provider snippet, as written, in main-actor code
/// (what top-level code is), over an in-memory server whose auth hook knows the provider's token.
@Suite("Tinyvex README: the optimistic update and token provider snippet compiles and works", .timeLimit(.minutes(1)))
struct ReadmeOptimisticTests {
    /// The README's message type, as the snippet declares it.
    struct Message: Codable { var id: Int64; var channel: String; var author: String; var text: String }

    /// The app's sign-in code the snippet calls: records each `refreshing` it is asked with.
    final class SignIn: Sendable {
        private let calls = Mutex<[Bool]>([])

        var asked: [Bool] { calls.withLock { $0 } }

        func idToken(refreshing: Bool) async throws -> String {
            calls.withLock { $0.append(refreshing) }
            return "ann-token"
        }
    }

    static func schema() -> TinyvexSchema {
        var schema = TinyvexDemoSchema.schema()
        schema.query("whoami") { (context, _: JSONValue) in context.identity ?? "" }
        return schema
    }

    @Test("the optimistic message shows in the live list before the server answers, then the server's replaces it; the provider's token is used")
    @MainActor
    func snippet() async throws {
        let configuration = TinyvexServerConfiguration(authenticate: { token in token == "ann-token" ? "ann" : nil })
        try await withInMemoryServer(schema: Self.schema(), configuration: configuration) { server in
            let client = try makeClient(server, configuration: TinyvexClientConfiguration(delivery: .immediate))
            let signIn = SignIn()
            let shown = ValueRecorder<[Message]>()
            let list = client.subscribe("messages.list", params: ["channel": "general"], as: [Message].self)
                .sink(receiveCompletion: { _ in }, receiveValue: { shown.record($0) })
            try await waitUntil("the empty list") { shown.values.count == 1 }
            // From here on, the README's snippet.
            // The message shows in messages.list at once; the server's value replaces it when the
            // mutation is done, and a failure rolls it back.
            let draft = Message(id: -1, channel: "general", author: "ann", text: "on its way")
            let sentID = try await client.mutation("messages.send", args: ["channel": "general", "author": "ann", "text": draft.text],
                                                   as: Int64.self) { store in
                var messages = store.getQuery("messages.list", params: ["channel": "general"], as: [Message].self) ?? []
                messages.append(draft)
                store.setQuery("messages.list", params: ["channel": "general"], value: messages)
            }
            // Called before each connection and again, with forceRefresh, for an expired token.
            client.setAuthTokenProvider { forceRefresh in
                try? await signIn.idToken(refreshing: forceRefresh)   // your sign-in code; nil means no token
            }
            // End of the snippet.
            let ids = shown.values.map { $0.map(\.id) }
            #expect(Array(ids.prefix(3)) == [[], [-1], [sentID]], "the optimistic value, then the server's")
            // The new token may bring the server's value again, never the optimistic one.
            #expect(ids.dropFirst(3).allSatisfy { $0 == [sentID] })
            try await waitUntil("the provider's token in use") {
                (try? await client.query("whoami", params: JSONValue.null, as: String.self)) == "ann"
            }
            #expect(signIn.asked.first == false)
            list.cancel()
            await client.close()
        }
    }
}
