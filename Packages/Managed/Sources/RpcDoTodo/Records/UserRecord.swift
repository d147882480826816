/// A user with its profile: `{id, name, displayName, email, avatarUrl, profile}`.
struct UserRecord: Codable, Sendable, Equatable {
    var id: String
    var name: String
    var displayName: String
    var email: String
    var avatarUrl: String
    var profile: ProfileRecord
}
