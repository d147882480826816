/// An event on a topic: `{id, topic, type, payload, priority}`; `priority` is `low`, `normal` or `high`.
struct EventRecord: Codable, Sendable, Equatable {
    var id: String
    var topic: String
    var type: String
    var payload: String
    var priority: String
}
