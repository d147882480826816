/// One section of the 1 MiB benchmark document: a long body string plus a few scalars.
struct ArticleSection: Codable, Equatable {
    var id: Int
    var heading: String
    var language: String
    var body: String
    var wordCount: Int
    var score: Double
    var tags: [String]

    private static let languages: [(code: String, script: ProseGenerator.Script)] = [
        ("en", .ascii), ("fr", .latin), ("ja", .cjk), ("de", .latin), ("zh", .cjk), ("mul", .mixed),
        ("en", .ascii), ("ko", .cjk),
    ]

    /// The section at `index`, its text drawn from `prose`.
    static func generate(index: Int, prose: inout ProseGenerator, generator: inout SplitMix64) -> ArticleSection {
        let language = languages[index % languages.count]
        let body = prose.passage(language.script, length: generator.within(1_500...6_000))
        return ArticleSection(
            id: index + 1,
            heading: prose.title(language.script),
            language: language.code,
            body: body,
            wordCount: body.split(separator: " ").count,
            score: generator.sixteenths(below: 10),
            tags: (0..<generator.within(1...4)).map { _ in prose.title(.ascii) })
    }

    /// Writes the section as a JSON object, members in declaration order.
    func write(to builder: inout JSONTextBuilder) {
        builder.beginObject()
        builder.key("id")
        builder.integer(id)
        builder.key("heading")
        builder.string(heading)
        builder.key("language")
        builder.string(language)
        builder.key("body")
        builder.string(body)
        builder.key("wordCount")
        builder.integer(wordCount)
        builder.key("score")
        builder.double(score)
        builder.key("tags")
        builder.strings(tags)
        builder.endObject()
    }
}
