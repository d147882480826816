/// The person passed as the argument of the benchmark's Cap'n Web push message.
struct Profile: Codable, Equatable {
    var id: Int
    var name: String
    var email: String
    /// Cap'n Web escapes literal arrays by wrapping them in another array (`[["x","y"]]` is the
    /// array `["x","y"]`), so the wire form of the tag list is an array holding it.
    var tags: [[String]]
    var score: Double
    var active: Bool
    var bio: String?

    /// Writes the profile as a JSON object, members in declaration order.
    func write(to builder: inout JSONTextBuilder) {
        builder.beginObject()
        builder.key("id")
        builder.integer(id)
        builder.key("name")
        builder.string(name)
        builder.key("email")
        builder.string(email)
        builder.key("tags")
        builder.beginArray()
        for list in tags {
            builder.strings(list)
        }
        builder.endArray()
        builder.key("score")
        builder.double(score)
        builder.key("active")
        builder.bool(active)
        builder.key("bio")
        builder.string(orNull: bio)
        builder.endObject()
    }
}
