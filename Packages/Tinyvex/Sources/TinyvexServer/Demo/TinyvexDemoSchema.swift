import RpcWire
import TinyvexProtocol

/// The demo chat schema of `tinyvex serve --demo`.
///
/// - table `messages` with index `by_channel` on `channel`, which `messages.list` and
///   `messages.clear` read through;
/// - query `messages.list {channel}`: the channel's messages, oldest first, each
///   `{id, channel, author, text}`;
/// - query `messages.page {channel, paginationOpts: {numItems, cursor}}`: one page of the
///   channel's messages, oldest first, as `{page, isDone, continueCursor}` (see
///   ``TinyvexTableQuery/paginate(_:)``);
/// - query `messages.count {channel}`: how many messages the channel has;
/// - query `channels.list {}`: the names of the channels that have messages, sorted;
/// - mutation `messages.send {channel, author, text}`: adds a message, returns its id;
/// - mutation `messages.clear {channel}`: deletes the channel's messages, returns how many;
/// - mutation `messages.schedule {channel, author, text, delayMs}`: schedules
///   `messages.send` to run `delayMs` later (stored with this mutation, run once, also across a
///   restart) and returns the scheduled id;
/// - action `messages.sendLater {channel, author, text, delayMs}`: waits, then runs
///   `messages.send`, and returns the new id.
///
/// Arguments are checked before use: names up to ``maxNameBytes``, texts up to
/// ``maxTextBytes``, `delayMs` in `0...maxDelayMilliseconds`; others fail with `TVX003` (a
/// query's with `TVX002`).
public enum TinyvexDemoSchema {
    /// One chat message as the demo queries return it.
    public struct Message: Codable, Sendable, Hashable {
        /// The message's id.
        public var id: Int64
        /// The channel it was sent to.
        public var channel: String
        /// Who sent it.
        public var author: String
        /// What it says.
        public var text: String

        /// Creates a message value.
        public init(id: Int64, channel: String, author: String, text: String) {
            self.id = id
            self.channel = channel
            self.author = author
            self.text = text
        }
    }

    struct ChannelParams: Codable {
        let channel: String
    }

    struct NoParams: Codable {}

    struct PageParams: Codable {
        let channel: String
        let paginationOpts: TinyvexPaginationOptions
    }

    struct SendArgs: Codable {
        let channel: String
        let author: String
        let text: String
    }

    struct SendLaterArgs: Codable {
        let channel: String
        let author: String
        let text: String
        let delayMs: Int
    }

    /// The longest channel or author name, in UTF-8 bytes.
    public static let maxNameBytes = 256
    /// The longest message text, in UTF-8 bytes.
    public static let maxTextBytes = 64 * 1024
    /// The longest wait of `messages.sendLater` and `messages.schedule`, in milliseconds.
    public static let maxDelayMilliseconds = 60_000

    /// The schema.
    public static func schema() -> TinyvexSchema {
        var schema = TinyvexSchema()
        schema.table("messages", indexes: [TinyvexIndex("by_channel", on: ["channel"])])
        schema.query("messages.list") { (context, params: ChannelParams) -> [Message] in
            try check(params.channel, "channel", maxBytes: maxNameBytes, code: .subscriptionRejected)
            return try context.query("messages").withIndex("by_channel") { $0.eq("channel", params.channel) }.collect().map(message)
        }
        schema.query("messages.page") { (context, params: PageParams) -> TinyvexPaginationResult<Message> in
            try check(params.channel, "channel", maxBytes: maxNameBytes, code: .subscriptionRejected)
            return try context.query("messages").withIndex("by_channel") { $0.eq("channel", params.channel) }
                .order(.asc).paginate(params.paginationOpts).map(message)
        }
        schema.query("messages.count") { (context, params: ChannelParams) -> Int in
            try check(params.channel, "channel", maxBytes: maxNameBytes, code: .subscriptionRejected)
            return try context.query("messages").withIndex("by_channel") { $0.eq("channel", params.channel) }.collect().count
        }
        schema.query("channels.list") { (context, _: NoParams) -> [String] in
            Array(Set(try context.all("messages").compactMap { $0["channel"]?.stringValue })).sorted()
        }
        schema.mutation("messages.send") { (context, args: SendArgs) -> Int64 in
            try check(args.channel, "channel", maxBytes: maxNameBytes)
            try check(args.author, "author", maxBytes: maxNameBytes)
            try check(args.text, "text", maxBytes: maxTextBytes)
            return try context.insert("messages", ["channel": .string(args.channel), "author": .string(args.author), "text": .string(args.text)])
        }
        schema.mutation("messages.clear") { (context, params: ChannelParams) -> Int in
            try check(params.channel, "channel", maxBytes: maxNameBytes)
            let messages = try context.query("messages").withIndex("by_channel") { $0.eq("channel", params.channel) }.collect()
            for document in messages {
                if let id = document["id"]?.int64Value {
                    try context.delete("messages", id: id)
                }
            }
            return messages.count
        }
        schema.mutation("messages.schedule") { (context, args: SendLaterArgs) -> String in
            guard (0...maxDelayMilliseconds).contains(args.delayMs) else {
                throw TinyvexServerError(
                    .mutationFailed, "delayMs must be between 0 and \(maxDelayMilliseconds)", details: ["field": "delayMs"])
            }
            try check(args.channel, "channel", maxBytes: maxNameBytes)
            try check(args.author, "author", maxBytes: maxNameBytes)
            try check(args.text, "text", maxBytes: maxTextBytes)
            return try context.scheduler.runAfter(
                .milliseconds(args.delayMs), "messages.send", args: SendArgs(channel: args.channel, author: args.author, text: args.text))
        }
        schema.action("messages.sendLater") { (context, args: SendLaterArgs) -> Int64 in
            guard (0...maxDelayMilliseconds).contains(args.delayMs) else {
                throw TinyvexServerError(
                    .mutationFailed, "delayMs must be between 0 and \(maxDelayMilliseconds)", details: ["field": "delayMs"])
            }
            try check(args.channel, "channel", maxBytes: maxNameBytes)
            try check(args.author, "author", maxBytes: maxNameBytes)
            try check(args.text, "text", maxBytes: maxTextBytes)
            try await Task.sleep(for: .milliseconds(args.delayMs))
            let id = try await context.runMutation(
                "messages.send", args: ["channel": .string(args.channel), "author": .string(args.author), "text": .string(args.text)])
            guard let id = id.int64Value else {
                throw TinyvexServerError(.mutationFailed, "messages.send returned \(id.kindName), not an id")
            }
            return id
        }
        return schema
    }

    /// Refuses a string argument longer than `maxBytes` with a typed error naming the field.
    private static func check(_ value: String, _ field: String, maxBytes: Int, code: TinyvexErrorCode = .mutationFailed) throws {
        guard value.utf8.count <= maxBytes else {
            throw TinyvexServerError(code, "\(field) is longer than \(maxBytes) bytes", details: ["field": .string(field)])
        }
    }

    private static func message(_ document: JSONObject) -> Message {
        Message(
            id: document["id"]?.int64Value ?? 0,
            channel: document["channel"]?.stringValue ?? "",
            author: document["author"]?.stringValue ?? "",
            text: document["text"]?.stringValue ?? "")
    }
}
