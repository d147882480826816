/// Why a `capnweb call` expression could not be parsed, and the column where it went wrong.
///
/// The description reads `column 7: missing ')' to close '(' at column 3, found end of input`;
/// ``pointing(into:)`` adds the source line with a caret under the column.
struct CallExpressionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    enum Kind: Sendable, Equatable {
        /// A character that starts no token, e.g. `#` or `+`.
        case unexpectedCharacter(Character)
        /// A string without its closing quote (the column is the opening quote's).
        case unterminatedString
        /// An escape sequence strings do not have, e.g. `\x` or `\u12`.
        case invalidEscape(String)
        /// A `\uXXXX` escape for half of a surrogate pair without the other half.
        case loneSurrogate(String)
        /// A malformed number: the text read so far and what is wrong with it.
        case invalidNumber(String, reason: String)
        /// A token that cannot come here.
        case unexpectedToken(found: String, expected: String)
        /// A bracket left open: `closer` was expected (possibly after a `,`) to match `opener`
        /// at column `openedAt`, and `found` came instead.
        case missingClose(closer: String, opener: String, openedAt: Int, found: String)
        /// An arrow function anywhere but as the only argument of `.map(...)`.
        case arrowOutsideMap
        /// An arrow function with other than one parameter, e.g. `() => 1` or `(a, b) => a`.
        case arrowParameterCount
        /// An index that is not a string or a non-negative integer literal, e.g. `a[x]`.
        case invalidIndex(found: String)
        /// `new` with something other than `Date`.
        case unsupportedNew(found: String)
        /// `new Date(...)` with something other than one number literal.
        case invalidDate(found: String)
        /// A binding or arrow parameter named with a reserved word (`true`, `main`, ...).
        case reservedName(String)
        /// `=` after something other than a plain name, e.g. `a.b = 1`.
        case invalidAssignmentTarget
    }

    /// What went wrong.
    var kind: Kind
    /// The 1-based column, in characters, of the offending text.
    var column: Int

    /// Creates an error.
    init(_ kind: Kind, column: Int) {
        self.kind = kind
        self.column = column
    }

    /// `column N: message`.
    var description: String {
        "column \(column): \(message)"
    }

    /// The message without the column.
    var message: String {
        switch kind {
        case .unexpectedCharacter(let character):
            "unexpected character '\(character)'"
        case .unterminatedString:
            "unterminated string: the closing quote is missing"
        case .invalidEscape(let escape):
            "invalid escape sequence '\(escape)' in a string"
        case .loneSurrogate(let escape):
            "'\(escape)' is half of a surrogate pair; the other half must follow as '\\uXXXX'"
        case .invalidNumber(let text, let reason):
            "bad number '\(text)': \(reason)"
        case .unexpectedToken(let found, let expected):
            "expected \(expected), found \(found)"
        case .missingClose(let closer, let opener, let openedAt, let found):
            "missing '\(closer)' to close '\(opener)' at column \(openedAt), found \(found)"
        case .arrowOutsideMap:
            "an arrow function can only be the argument of '.map(x => ...)'"
        case .arrowParameterCount:
            "an arrow function for '.map' takes exactly one parameter"
        case .invalidIndex(let found):
            "an index must be a string or a non-negative integer literal, found \(found)"
        case .unsupportedNew(let found):
            "only 'new Date(milliseconds)' is supported, found 'new' followed by \(found)"
        case .invalidDate(let found):
            "'new Date(...)' takes one number of milliseconds (or NaN), found \(found)"
        case .reservedName(let name):
            "'\(name)' is a reserved word and cannot be used as a name"
        case .invalidAssignmentTarget:
            "only a plain name can be assigned, as in 'name = expression'"
        }
    }

    /// The message followed by `source` and a caret under the column:
    ///
    /// ```
    /// column 8: unterminated string: the closing quote is missing
    ///   square("5)
    ///          ^
    /// ```
    func pointing(into source: String) -> String {
        let line = source.map { $0.isNewline ? " " : String($0) }.joined()
        let padding = String(repeating: " ", count: max(column - 1, 0))
        return "\(description)\n  \(line)\n  \(padding)^"
    }
}
