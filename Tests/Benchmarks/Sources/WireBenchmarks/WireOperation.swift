/// An operation measured on every input, ours against Foundation's.
enum WireOperation: CaseIterable {
    /// JSON text to a tree: `JSONParser` against `JSONSerialization.jsonObject(with:)`.
    case parse
    /// A tree to JSON text: `JSONSerializer` against `JSONSerialization.data(withJSONObject:)`.
    case serialize
    /// JSON text to a typed model: `JSONValueDecoder` against `JSONDecoder`.
    case decode

    /// The short label in report lines.
    var label: String {
        switch self {
        case .parse: "parse"
        case .serialize: "serialize"
        case .decode: "decode"
        }
    }

    /// The Foundation API the operation is compared with.
    var baselineName: String {
        switch self {
        case .parse, .serialize: "JSONSerialization"
        case .decode: "JSONDecoder"
        }
    }

    /// The name on the final `ratio` line.
    var ratioName: String {
        "\(label)-vs-\(baselineName)"
    }

    /// The geometric mean of ours over Foundation's throughput this operation should reach.
    var goal: Double {
        switch self {
        case .parse: 8
        case .serialize: 10
        case .decode: 3
        }
    }
}
