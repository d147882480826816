/// A post: `{id, userId, title}`.
struct PostRecord: Codable, Sendable, Equatable {
    var id: String
    var userId: String
    var title: String
}
