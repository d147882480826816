/// The 1 MiB benchmark document: a title and many long multilingual sections.
struct Article: Codable, Equatable {
    var title: String
    var revision: Int
    var published: Bool
    var sections: [ArticleSection]

    /// Writes the article as a JSON object, members in declaration order.
    func write(to builder: inout JSONTextBuilder) {
        builder.beginObject()
        builder.key("title")
        builder.string(title)
        builder.key("revision")
        builder.integer(revision)
        builder.key("published")
        builder.bool(published)
        builder.key("sections")
        builder.beginArray()
        for section in sections {
            section.write(to: &builder)
        }
        builder.endArray()
        builder.endObject()
    }
}
