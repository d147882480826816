internal import CapnWeb
internal import RpcWire

/// Parses the JavaScript-like expressions of `capnweb call` by recursive descent.
///
/// ```text
/// statement  := NAME '=' expression | expression
/// expression := primary postfix*
/// postfix    := '.' NAME | '[' key ']' | '(' arguments ')'
/// arguments  := (argument (',' argument)* ','?)?
/// argument   := arrow | expression                 an arrow only as the sole argument of .map
/// arrow      := NAME '=>' expression | '(' NAME ')' '=>' expression
/// key        := STRING | non-negative INTEGER
/// primary    := literal | NAME | '[' elements ']' | '{' members '}' | '(' expression ')'
///             | 'new' 'Date' '(' ['-'] (NUMBER | 'NaN' | 'Infinity') ')'
/// elements   := (expression (',' expression)* ','?)?
/// members    := (member (',' member)* ','?)?
/// member     := (NAME | STRING) ':' expression | NAME          `{x}` is `{x: x}`
/// literal    := STRING | ['-'] (NUMBER | BIGINT | 'Infinity')
///             | 'true' | 'false' | 'null' | 'undefined' | 'NaN'
/// ```
///
/// `base.map(x => body)` becomes ``CallExpression/map(_:parameter:body:)``; a call to a member
/// named `map` with any other arguments stays a plain call. The words of `literal` and `new`
/// are reserved in value position, but any word can follow a `.` or be an object key. Numbers
/// without fraction or exponent that fit `Int64` are ``RpcPayload/integer(_:)``, other numbers
/// ``RpcPayload/double(_:)`` (`-0` is the double negative zero); `new Date(NaN)` and
/// `new Date(Infinity)` are the invalid date.
struct CallExpressionParser {
    /// The words that are literals or keywords; they cannot be bound, nor be arrow parameters.
    static let reservedWords: Set<String> = ["true", "false", "null", "undefined", "NaN", "Infinity", "new"]

    /// Names that stand for the main object; they cannot be rebound.
    static let mainObjectNames: Set<String> = ["main", "api"]

    /// The tokens, ending with an `end` or `invalid` token.
    private let tokens: [CallToken]
    /// The index of the current token.
    private var position = 0

    /// Creates a parser over `source`.
    init(_ source: String) {
        tokens = CallExpressionLexer.tokenize(source)
    }

    /// Parses one command-line argument: `name = expression` or `expression`.
    static func parseStatement(_ source: String) throws(CallExpressionError) -> CallStatement {
        var parser = CallExpressionParser(source)
        return try parser.parseStatement()
    }

    /// Parses a whole expression (no binding).
    static func parseExpression(_ source: String) throws(CallExpressionError) -> CallExpression {
        var parser = CallExpressionParser(source)
        let expression = try parser.parseExpression()
        try parser.expectEnd()
        return expression
    }

    // MARK: - Statements

    /// Parses a statement and checks that the input ends after it.
    mutating func parseStatement() throws(CallExpressionError) -> CallStatement {
        var binding: String?
        if case .identifier(let name) = peekKind(), peekKind(offset: 1) == .punctuation(.equals) {
            try checkNotReserved(name, column: tokens[position].column)
            binding = name
            position += 2
        }
        let expression = try parseExpression()
        try expectEnd()
        return CallStatement(binding: binding, expression: expression)
    }

    /// Throws unless the input ends here.
    private mutating func expectEnd() throws(CallExpressionError) {
        let token = try current()
        switch token.kind {
        case .end:
            return
        case .punctuation(.equals):
            throw CallExpressionError(.invalidAssignmentTarget, column: token.column)
        default:
            throw unexpected(token, expected: "the end of the expression")
        }
    }

    // MARK: - Expressions

    /// Parses a primary expression and its postfix operations.
    mutating func parseExpression() throws(CallExpressionError) -> CallExpression {
        var expression = try parsePrimary()
        while true {
            let token = try current()
            switch token.kind {
            case .punctuation(.dot):
                position += 1
                expression = .member(expression, try parseMemberName())
            case .punctuation(.openBracket):
                position += 1
                expression = .index(expression, try parseIndexKey(openedAt: token.column))
            case .punctuation(.openParenthesis):
                position += 1
                expression = try parseCall(of: expression, openedAt: token.column)
            default:
                return expression
            }
        }
    }

    /// Parses the name after a `.`; any word is allowed.
    private mutating func parseMemberName() throws(CallExpressionError) -> String {
        let token = try current()
        guard case .identifier(let name) = token.kind else {
            throw unexpected(token, expected: "a property name after '.'")
        }
        position += 1
        return name
    }

    /// Parses `key]` after a `[`.
    private mutating func parseIndexKey(openedAt: Int) throws(CallExpressionError) -> CapnWebPathKey {
        let token = try current()
        let key: CapnWebPathKey
        switch token.kind {
        case .string(let value):
            key = .property(value)
        case .number(let text):
            guard let index = Int64(text) else {
                throw CallExpressionError(.invalidIndex(found: token.display), column: token.column)
            }
            key = .index(index)
        default:
            throw CallExpressionError(.invalidIndex(found: token.display), column: token.column)
        }
        position += 1
        try expectClose(.closeBracket, opener: .openBracket, openedAt: openedAt)
        return key
    }

    /// Parses `arguments)` after the `(` of a call, making a map out of `.map(x => ...)`.
    private mutating func parseCall(
        of callee: CallExpression, openedAt: Int
    ) throws(CallExpressionError) -> CallExpression {
        var arguments: [CallExpression] = []
        var arrow: (parameter: String, body: CallExpression, column: Int)?
        try parseList(closer: .closeParenthesis, opener: .openParenthesis, openedAt: openedAt) {
            (parser: inout CallExpressionParser) throws(CallExpressionError) in
            let column = try parser.current().column
            if let parameter = try parser.parseArrowHead() {
                guard arrow == nil, arguments.isEmpty else {
                    throw CallExpressionError(.arrowOutsideMap, column: column)
                }
                arrow = (parameter, try parser.parseExpression(), column)
            } else {
                if let arrow {
                    throw CallExpressionError(.arrowOutsideMap, column: arrow.column)
                }
                arguments.append(try parser.parseExpression())
            }
        }
        guard let arrow else {
            return .call(callee, arguments)
        }
        guard case .member(let base, "map") = callee else {
            throw CallExpressionError(.arrowOutsideMap, column: arrow.column)
        }
        return .map(base, parameter: arrow.parameter, body: arrow.body)
    }

    /// Reads `x =>` or `(x) =>` when an arrow function starts here and returns the parameter;
    /// returns `nil`, reading nothing, when none does.
    private mutating func parseArrowHead() throws(CallExpressionError) -> String? {
        let start = try current()
        if case .identifier(let name) = start.kind, peekKind(offset: 1) == .punctuation(.arrow) {
            try checkNotReserved(name, column: start.column)
            position += 2
            return name
        }
        guard start.kind == .punctuation(.openParenthesis) else { return nil }
        // Scan `( NAME, NAME, ... ) =>` to tell an arrow from a parenthesized expression.
        var names: [(name: String, column: Int)] = []
        var offset = 1
        while true {
            if peekKind(offset: offset) == .punctuation(.closeParenthesis) { break }
            guard case .identifier(let name) = peekKind(offset: offset) else { return nil }
            names.append((name, tokens[position + offset].column))
            offset += 1
            if peekKind(offset: offset) == .punctuation(.comma) {
                offset += 1
            } else if peekKind(offset: offset) != .punctuation(.closeParenthesis) {
                return nil
            }
        }
        guard peekKind(offset: offset + 1) == .punctuation(.arrow) else { return nil }
        guard names.count == 1, let parameter = names.first else {
            throw CallExpressionError(.arrowParameterCount, column: start.column)
        }
        try checkNotReserved(parameter.name, column: parameter.column)
        position += offset + 2
        return parameter.name
    }

    // MARK: - Primaries

    /// Parses a literal, a name, an array or object literal, or a parenthesized expression.
    private mutating func parsePrimary() throws(CallExpressionError) -> CallExpression {
        let token = try current()
        switch token.kind {
        case .identifier(let name):
            if peekKind(offset: 1) == .punctuation(.arrow) {
                throw CallExpressionError(.arrowOutsideMap, column: token.column)
            }
            position += 1
            if name == "new" {
                return .literal(try parseNewDate())
            }
            return Self.keywordLiteral(name).map(CallExpression.literal) ?? .name(name)
        case .number(let text):
            position += 1
            return .literal(Self.number(text, negative: false))
        case .bigint(let digits):
            position += 1
            return .literal(.bigint(digits))
        case .string(let value):
            position += 1
            return .literal(.string(value))
        case .punctuation(.minus):
            position += 1
            return .literal(try parseNegativeNumber(allowingBigint: true))
        case .punctuation(.openBracket):
            position += 1
            return try parseArray(openedAt: token.column)
        case .punctuation(.openBrace):
            position += 1
            return try parseObject(openedAt: token.column)
        case .punctuation(.openParenthesis):
            if try parseArrowHead() != nil {
                throw CallExpressionError(.arrowOutsideMap, column: token.column)
            }
            position += 1
            let inner = try parseExpression()
            try expectClose(.closeParenthesis, opener: .openParenthesis, openedAt: token.column)
            return inner
        default:
            throw unexpected(token, expected: "an expression")
        }
    }

    /// The literal a keyword stands for, or `nil` for other names.
    private static func keywordLiteral(_ name: String) -> RpcPayload? {
        switch name {
        case "true": .bool(true)
        case "false": .bool(false)
        case "null": .null
        case "undefined": .undefined
        case "NaN": .double(.nan)
        case "Infinity": .double(.infinity)
        default: nil
        }
    }

    /// Parses what follows a `-`: a number, a bigint (when allowed) or `Infinity`.
    private mutating func parseNegativeNumber(allowingBigint: Bool) throws(CallExpressionError) -> RpcPayload {
        let token = try current()
        switch token.kind {
        case .number(let text):
            position += 1
            return Self.number(text, negative: true)
        case .bigint(let digits) where allowingBigint:
            position += 1
            return .bigint(digits.allSatisfy { $0 == "0" } ? digits : "-" + digits)
        case .identifier("Infinity"):
            position += 1
            return .double(-.infinity)
        default:
            throw unexpected(token, expected: "a number after '-'")
        }
    }

    /// The payload of a checked number literal: an integer when it has no fraction or exponent
    /// and fits `Int64`, a double otherwise.
    static func number(_ text: String, negative: Bool) -> RpcPayload {
        let signed = negative ? "-" + text : text
        if text.allSatisfy(\.isWholeNumber), let integer = Int64(signed) {
            return negative && integer == 0 ? .double(-0.0) : .integer(integer)
        }
        return .double(Double(signed) ?? .nan)
    }

    /// Parses `Date(ms)` after `new`.
    private mutating func parseNewDate() throws(CallExpressionError) -> RpcPayload {
        let name = try current()
        guard name.kind == .identifier("Date") else {
            throw CallExpressionError(.unsupportedNew(found: name.display), column: name.column)
        }
        position += 1
        let open = try current()
        guard open.kind == .punctuation(.openParenthesis) else {
            throw unexpected(open, expected: "'(' after 'new Date'")
        }
        position += 1
        let argument = try current()
        let milliseconds: Double
        switch argument.kind {
        case .number(let text):
            position += 1
            milliseconds = Double(text) ?? .nan
        case .punctuation(.minus):
            position += 1
            let negative = try parseNegativeNumber(allowingBigint: false)
            milliseconds = Self.doubleValue(negative)
        case .identifier("NaN"), .identifier("Infinity"):
            position += 1
            milliseconds = .nan
        default:
            throw CallExpressionError(.invalidDate(found: argument.display), column: argument.column)
        }
        try expectClose(.closeParenthesis, opener: .openParenthesis, openedAt: open.column)
        return .date(milliseconds.isFinite ? milliseconds : nil)
    }

    /// The number in an integer or double payload; NaN for anything else.
    private static func doubleValue(_ payload: RpcPayload) -> Double {
        switch payload {
        case .integer(let integer): Double(integer)
        case .double(let double): double
        default: .nan
        }
    }

    /// Parses `elements]` after a `[`.
    private mutating func parseArray(openedAt: Int) throws(CallExpressionError) -> CallExpression {
        var elements: [CallExpression] = []
        try parseList(closer: .closeBracket, opener: .openBracket, openedAt: openedAt) {
            (parser: inout CallExpressionParser) throws(CallExpressionError) in
            elements.append(try parser.parseExpression())
        }
        return .array(elements)
    }

    /// Parses `members}` after a `{`.
    private mutating func parseObject(openedAt: Int) throws(CallExpressionError) -> CallExpression {
        var members: [(String, CallExpression)] = []
        try parseList(closer: .closeBrace, opener: .openBrace, openedAt: openedAt) {
            (parser: inout CallExpressionParser) throws(CallExpressionError) in
            members.append(try parser.parseObjectMember())
        }
        return .object(members)
    }

    /// Parses `key: value`, or a shorthand `name`.
    private mutating func parseObjectMember() throws(CallExpressionError) -> (String, CallExpression) {
        let keyToken = try current()
        let key: String
        switch keyToken.kind {
        case .identifier(let name):
            key = name
        case .string(let value):
            key = value
        default:
            throw unexpected(keyToken, expected: "a key (a name or a string)")
        }
        position += 1
        let separator = try current()
        if separator.kind == .punctuation(.colon) {
            position += 1
            return (key, try parseExpression())
        }
        let endsMember = separator.kind == .punctuation(.comma) || separator.kind == .punctuation(.closeBrace)
        if case .identifier(let name) = keyToken.kind, endsMember {
            if Self.reservedWords.contains(name) {
                throw CallExpressionError(.reservedName(name), column: keyToken.column)
            }
            return (key, .name(name))
        }
        throw unexpected(separator, expected: "':' after the key")
    }

    // MARK: - Lists

    /// Parses comma-separated items up to `closer` (a trailing comma is allowed), the opener
    /// already read; `parseItem` reads one item.
    private mutating func parseList(
        closer: CallToken.Punctuation, opener: CallToken.Punctuation, openedAt: Int,
        _ parseItem: (inout CallExpressionParser) throws(CallExpressionError) -> Void
    ) throws(CallExpressionError) {
        while try current().kind != .punctuation(closer) {
            try parseItem(&self)
            let token = try current()
            if token.kind == .punctuation(.comma) {
                position += 1
            } else if token.kind != .punctuation(closer) {
                throw CallExpressionError(
                    .missingClose(
                        closer: closer.rawValue, opener: opener.rawValue, openedAt: openedAt, found: token.display),
                    column: token.column)
            }
        }
        position += 1
    }

    /// Reads `closer`, or throws ``CallExpressionError/Kind/missingClose(closer:opener:openedAt:found:)``.
    private mutating func expectClose(
        _ closer: CallToken.Punctuation, opener: CallToken.Punctuation, openedAt: Int
    ) throws(CallExpressionError) {
        let token = try current()
        guard token.kind == .punctuation(closer) else {
            throw CallExpressionError(
                .missingClose(closer: closer.rawValue, opener: opener.rawValue, openedAt: openedAt, found: token.display),
                column: token.column)
        }
        position += 1
    }

    // MARK: - Tokens

    /// The current token; throws the lexical error when the lexer stopped here.
    private func current() throws(CallExpressionError) -> CallToken {
        let token = tokens[min(position, tokens.count - 1)]
        if case .invalid(let error) = token.kind {
            throw error
        }
        return token
    }

    /// The kind of the token `offset` places ahead; the last token past the end.
    private func peekKind(offset: Int = 0) -> CallToken.Kind {
        tokens[min(position + offset, tokens.count - 1)].kind
    }

    /// Throws when `name` cannot be bound.
    private func checkNotReserved(_ name: String, column: Int) throws(CallExpressionError) {
        if Self.reservedWords.contains(name) || Self.mainObjectNames.contains(name) {
            throw CallExpressionError(.reservedName(name), column: column)
        }
    }

    /// An unexpected-token error at `token`.
    private func unexpected(_ token: CallToken, expected: String) -> CallExpressionError {
        CallExpressionError(.unexpectedToken(found: token.display, expected: expected), column: token.column)
    }
}
