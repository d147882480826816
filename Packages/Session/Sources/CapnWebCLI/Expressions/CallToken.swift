/// One token of a `capnweb call` expression, with the column where it starts.
struct CallToken: Sendable, Equatable {
    /// What the token is.
    enum Kind: Sendable, Equatable {
        /// A name: an identifier or a keyword (`true`, `new`, `NaN`, ...).
        case identifier(String)
        /// An unsigned number literal as written, already checked (`12`, `1.5e-3`).
        case number(String)
        /// An unsigned bigint literal's digits, without the `n` (`123` for `123n`).
        case bigint(String)
        /// A string literal's value, escapes resolved.
        case string(String)
        /// Punctuation.
        case punctuation(Punctuation)
        /// The end of the input.
        case end
        /// A lexical error: the tokens stop here, and the parser reports it on reaching it.
        case invalid(CallExpressionError)
    }

    /// The punctuation characters of the language.
    enum Punctuation: String, Sendable, Equatable {
        /// `.`
        case dot = "."
        /// `,`
        case comma = ","
        /// `:`
        case colon = ":"
        /// `(`
        case openParenthesis = "("
        /// `)`
        case closeParenthesis = ")"
        /// `[`
        case openBracket = "["
        /// `]`
        case closeBracket = "]"
        /// `{`
        case openBrace = "{"
        /// `}`
        case closeBrace = "}"
        /// `=`
        case equals = "="
        /// `=>`
        case arrow = "=>"
        /// `-`
        case minus = "-"
    }

    /// What the token is.
    var kind: Kind
    /// The 1-based column (in characters) where the token starts.
    var column: Int

    /// The token as an error message shows it: `'name'`, `'5'`, `"text"`, `')'`, `end of input`.
    var display: String {
        switch kind {
        case .identifier(let name):
            "'\(name)'"
        case .number(let text):
            "'\(text)'"
        case .bigint(let digits):
            "'\(digits)n'"
        case .string(let value):
            "string " + CallToken.quoted(value)
        case .punctuation(let punctuation):
            "'\(punctuation.rawValue)'"
        case .end, .invalid:
            "end of input"
        }
    }

    /// `value` in double quotes, shortened to 20 characters, for messages.
    private static func quoted(_ value: String) -> String {
        let shown = value.count > 20 ? String(value.prefix(20)) + "…" : value
        return "\"" + shown.map { $0 == "\"" ? "\\\"" : String($0) }.joined() + "\""
    }
}
