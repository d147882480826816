/// A Cap'n Web `push` of a pipelined call, `["push",["pipeline",ID,PATH,ARGUMENTS]]`.
///
/// The message is positional, so it is decoded and encoded by hand through unkeyed containers,
/// as a typed client of the protocol would do it.
struct PushMessage: Codable, Equatable {
    /// The import the call is made on (0 is the peer's main object).
    var importID: Int
    /// The property path of the method, for example `["echo"]`.
    var path: [String]
    /// The call's arguments.
    var arguments: [Profile]

    /// The message every benchmark run uses (about 150 bytes on the wire).
    static let sample = PushMessage(
        importID: 0,
        path: ["echo"],
        arguments: [
            Profile(
                id: 12345,
                name: "Ada Lovelace",
                email: "ada@example.org",
                tags: [["x", "y"]],
                score: 98.5,
                active: true,
                bio: nil),
        ])

    init(importID: Int, path: [String], arguments: [Profile]) {
        self.importID = importID
        self.path = path
        self.arguments = arguments
    }

    init(from decoder: any Decoder) throws {
        var message = try decoder.unkeyedContainer()
        try Self.expectTag("push", in: &message)
        var expression = try message.nestedUnkeyedContainer()
        try Self.expectTag("pipeline", in: &expression)
        importID = try expression.decode(Int.self)
        path = try expression.decode([String].self)
        arguments = try expression.decode([Profile].self)
        guard expression.isAtEnd else {
            throw DecodingError.dataCorruptedError(
                in: expression, debugDescription: "unexpected element after the arguments")
        }
        guard message.isAtEnd else {
            throw DecodingError.dataCorruptedError(
                in: message, debugDescription: "unexpected element after the expression")
        }
    }

    func encode(to encoder: any Encoder) throws {
        var message = encoder.unkeyedContainer()
        try message.encode("push")
        var expression = message.nestedUnkeyedContainer()
        try expression.encode("pipeline")
        try expression.encode(importID)
        try expression.encode(path)
        try expression.encode(arguments)
    }

    /// Writes the message in its wire form.
    func write(to builder: inout JSONTextBuilder) {
        builder.beginArray()
        builder.string("push")
        builder.beginArray()
        builder.string("pipeline")
        builder.integer(importID)
        builder.strings(path)
        builder.beginArray()
        for argument in arguments {
            argument.write(to: &builder)
        }
        builder.endArray()
        builder.endArray()
        builder.endArray()
    }

    private static func expectTag(
        _ tag: String, in container: inout any UnkeyedDecodingContainer
    ) throws {
        let found = try container.decode(String.self)
        guard found == tag else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "expected the tag \"\(tag)\", found \"\(found)\"")
        }
    }
}
