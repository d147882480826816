import RivetKit
import Synchronization

/// The demo registry `rivetkit serve --demo` runs: a `counter`, a `chat` and a `forwarder`
/// actor (the last in `DemoActors+Forwarder.swift`).
///
/// - `counter`: state `count`, starting at 0 or at its creation input (a number);
///   `increment(by)` adds, broadcasts `newCount(count)` and returns the new count (a sum out of
///   `Int`'s range throws group `user`, code `overflow`, and changes nothing);
///   `getCount()`; `fail()` throws group `user`, code `test_error`, message `boom`, metadata
///   `{"why":"asked to fail"}`; `whoAmI()` returns the `user` connection parameter, kept as
///   the connection's state (`null` without one); `connectionCount()` counts the live
///   connections (`context.connections`, the calling one included); `wakeCount()` reads a var
///   counting the instance's starts since the process started (1 after the first request, 2
///   after a sleep and a wake); `destroySelf()` destroys the actor and returns `true`;
///   `scheduleIncrement(by, delayMs)` schedules `increment(by)` and returns the schedule's id.
///   Raw HTTP: `GET /count` answers `{"count": N}`, any other request 404; a raw WebSocket gets
///   each text message back as `count:<N>:<text>`.
/// - `chat`, keyed by room: `send(from, text)` broadcasts `message(from, text)` and keeps the
///   last 100 messages (a sender or text over 4 KiB throws group `user`, code
///   `message_too_long`); `history()` returns them.
public enum DemoActors {
    /// The counter's state.
    public struct Counter: Codable, Sendable, Hashable {
        /// The count.
        public var count: Int
    }

    /// One chat message.
    public struct ChatMessage: Codable, Sendable, Hashable {
        /// Who sent it.
        public var from: String
        /// What was said.
        public var text: String

        /// Creates a message.
        public init(from: String, text: String) {
            self.from = from
            self.text = text
        }
    }

    /// The chat's state.
    public struct Chat: Codable, Sendable, Hashable {
        /// The last messages, oldest first.
        public var messages: [ChatMessage]
    }

    /// How many messages a chat keeps.
    public static let chatHistoryLimit = 100

    /// The longest sender or text a chat message may have, in UTF-8 bytes (so a chat's state
    /// stays under a megabyte).
    public static let chatTextLimit = 4 * 1024

    /// The counter's vars: which start of the actor in this process made them.
    public struct CounterVars: Sendable {
        /// How many times the actor started (was created or woken) since the process started.
        public var wakeCount: Int
    }

    /// A counter connection's state: the `user` connection parameter.
    public struct CounterConnection: Sendable {
        /// The user the client named; `nil` when it named none.
        public var user: String?
    }

    /// The starts of each counter in this process, by actor id.
    private static let starts = Mutex<[String: Int]>([:])

    /// How many counters' starts are remembered; past it the table starts again, so that many
    /// actors cannot make it grow without bound (their counts then start again at 1).
    static let maxCountedActors = 10_000

    /// Counts a start of the counter `id`; returns its number.
    static func countStart(of id: String) -> Int {
        starts.withLock { starts in
            if starts[id] == nil, starts.count >= maxCountedActors { starts = [:] }
            let next = (starts[id] ?? 0) &+ 1
            starts[id] = next
            return next
        }
    }

    /// The counter actor type.
    public static let counter = ActorDefinition<Counter>("counter") { input in
        Counter(count: input?.intValue ?? 0)
    }
    .createVars { context in CounterVars(wakeCount: countStart(of: context.actorId)) }
    // Any parameters are accepted: only a string `user` is kept.
    .createConnState { (_, params: JSONValue) in CounterConnection(user: params["user"]?.stringValue) }
    .action("increment") { (context: inout ActorContext<Counter>, by: Int) in
        // Checked: an increment past Int's range is refused, and the count stays as it was.
        let (sum, overflow) = context.state.count.addingReportingOverflow(by)
        guard !overflow else {
            throw ActorError(
                group: "user", code: "overflow", message: "the count \(context.state.count) plus \(by) is out of range",
                metadata: ["count": .integer(Int64(context.state.count)), "by": .integer(Int64(by))])
        }
        context.state.count = sum
        try context.broadcast("newCount", context.state.count)
        return context.state.count
    }
    .action("getCount") { context in context.state.count }
    .action("fail") { (_: inout ActorContext<Counter>) -> Int in
        throw ActorError(group: "user", code: "test_error", message: "boom", metadata: ["why": "asked to fail"])
    }
    .action("whoAmI") { context in try context.connection.state(as: CounterConnection.self).user }
    .action("connectionCount") { context in context.connections.count }
    .action("wakeCount") { context in try context.vars(as: CounterVars.self).wakeCount }
    .action("destroySelf") { context in
        context.destroy()
        return true
    }
    .action("scheduleIncrement", scheduleIncrement)
    .onRequest(counterRequest)
    .onWebSocket(counterWebSocket)

    /// The chat actor type.
    public static let chat = ActorDefinition("chat", initialState: Chat(messages: []))
        .action("send") { (context: inout ActorContext<Chat>, from: String, text: String) in
            guard from.utf8.count <= chatTextLimit, text.utf8.count <= chatTextLimit else {
                throw ActorError(
                    group: "user", code: "message_too_long",
                    message: "a chat sender and text are at most \(chatTextLimit) bytes each",
                    metadata: ["limit": .integer(Int64(chatTextLimit))])
            }
            context.state.messages.append(ChatMessage(from: from, text: text))
            if context.state.messages.count > chatHistoryLimit {
                context.state.messages.removeFirst(context.state.messages.count - chatHistoryLimit)
            }
            try context.broadcast("message", from, text)
            return true
        }
        .action("history") { context in context.state.messages }

    /// A registry with the three.
    public static var registry: ActorRegistry {
        var registry = ActorRegistry()
        registry.register(counter)
        registry.register(chat)
        registry.register(forwarder)
        return registry
    }
}
