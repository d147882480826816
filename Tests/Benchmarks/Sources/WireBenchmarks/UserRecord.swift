/// One element of the 64 KiB benchmark input: an account record with the usual mix of
/// identifiers, names, e-mail addresses, doubles, booleans and small arrays.
struct UserRecord: Codable, Equatable {
    var id: Int
    var name: String
    var email: String
    var balance: Double
    var rating: Double
    var active: Bool
    var verified: Bool
    var manager: Int?
    var tags: [String]
    var scores: [Int]

    private static let givenNames = [
        "Ada", "Alan", "Grace", "Edsger", "Barbara", "Donald", "Margaret", "Dennis", "Frances",
        "John", "Radia", "Ken", "Lynn", "Niklaus", "Sophie", "Tony", "Zoë", "José", "Björn", "Ines",
    ]
    private static let familyNames = [
        "Lovelace", "Turing", "Hopper", "Dijkstra", "Liskov", "Knuth", "Hamilton", "Ritchie",
        "Allen", "Backus", "Perlman", "Thompson", "Conway", "Wirth", "Wilson", "Hoare", "Müller",
    ]
    private static let domains = ["example.org", "example.com", "mail.example.net", "corp.example"]
    private static let tagPool = [
        "admin", "beta", "billing", "eu", "us", "apac", "mobile", "desktop", "trial", "premium",
        "support", "legacy", "api", "sso",
    ]

    /// A record drawn from `generator`; `index` makes the identifier unique.
    static func generate(index: Int, using generator: inout SplitMix64) -> UserRecord {
        let given = generator.pick(givenNames)
        let family = generator.pick(familyNames)
        let local = "\(given.lowercased()).\(family.lowercased())\(index)"
            .unicodeScalars.filter(\.isASCII).map(String.init).joined()
        return UserRecord(
            id: 100_000 + index * 7,
            name: "\(given) \(family)",
            email: "\(local)@\(generator.pick(domains))",
            balance: generator.sixteenths(below: 100_000),
            rating: generator.sixteenths(below: 5),
            active: !generator.oneIn(4),
            verified: generator.oneIn(2),
            manager: generator.oneIn(3) ? nil : 100_000 + generator.below(index + 1) * 7,
            tags: (0..<generator.within(0...3)).map { _ in generator.pick(tagPool) },
            scores: (0..<generator.within(1...5)).map { _ in generator.below(1000) })
    }

    /// Writes the record as a JSON object, members in declaration order.
    func write(to builder: inout JSONTextBuilder) {
        builder.beginObject()
        builder.key("id")
        builder.integer(id)
        builder.key("name")
        builder.string(name)
        builder.key("email")
        builder.string(email)
        builder.key("balance")
        builder.double(balance)
        builder.key("rating")
        builder.double(rating)
        builder.key("active")
        builder.bool(active)
        builder.key("verified")
        builder.bool(verified)
        builder.key("manager")
        builder.integer(orNull: manager)
        builder.key("tags")
        builder.strings(tags)
        builder.key("scores")
        builder.integers(scores)
        builder.endObject()
    }
}
