/// A user with its profile: `{id, name, email, avatarUrl, profile}`.
struct UserRecord: Codable, Sendable, Equatable {
    var id: String
    var name: String
    var email: String
    var avatarUrl: String
    var profile: ProfileRecord
}
