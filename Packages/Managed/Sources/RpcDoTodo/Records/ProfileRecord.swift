/// A user's profile: `{userId, displayName, bio, avatar: {url}, settings: {preferences: {theme, language}}}`.
struct ProfileRecord: Codable, Sendable, Equatable {
    /// `{url}`.
    struct Avatar: Codable, Sendable, Equatable {
        var url: String
    }

    /// `{preferences: {theme, language}}`.
    struct Settings: Codable, Sendable, Equatable {
        var preferences: [String: String]
    }

    var userId: String
    var displayName: String
    var bio: String
    var avatar: Avatar
    var settings: Settings
}
