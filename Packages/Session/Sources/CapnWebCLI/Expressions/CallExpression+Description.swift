internal import CapnWeb
internal import RpcWire

extension CallExpression: CustomStringConvertible {
    /// The expression as source text the parser reads back to the same expression, compact:
    /// `square(5)`, `todos.map(t => t["title"])`, `{"a":[1,undefined]}`.
    var description: String {
        switch self {
        case .literal(let payload):
            return payload.description
        case .array(let elements):
            return "[" + elements.map(\.description).joined(separator: ",") + "]"
        case .object(let members):
            return "{" + members.map { CallExpression.literal(.string($0.0)).description + ":" + $0.1.description }
                .joined(separator: ",") + "}"
        case .name(let name):
            return name
        case .member(let base, let name):
            guard Self.isPlainName(name) else {
                return base.postfixBase + "[" + CapnWebPathKey.property(name).description + "]"
            }
            return base.postfixBase + "." + name
        case .index(let base, let key):
            return base.postfixBase + "[" + key.description + "]"
        case .call(let callee, let arguments):
            return callee.postfixBase + "(" + arguments.map(\.description).joined(separator: ",") + ")"
        case .map(let base, let parameter, let body):
            return base.postfixBase + ".map(" + parameter + " => " + body.description + ")"
        }
    }

    /// The text of the expression as the base of a `.`, `[` or `(`: numbers in parentheses, so
    /// that `(5).x` does not read as a malformed number.
    private var postfixBase: String {
        switch self {
        case .literal(.integer), .literal(.double), .literal(.bigint):
            "(" + description + ")"
        default:
            description
        }
    }

    /// Whether `name` can be written after a `.`: letters, digits, `_` and `$`, not starting
    /// with a digit.
    private static func isPlainName(_ name: String) -> Bool {
        guard let first = name.first, first.isLetter || first == "_" || first == "$" else { return false }
        return name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "$" }
    }
}
