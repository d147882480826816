/// Splits a `capnweb call` expression into tokens.
///
/// - Names: a letter, `_` or `$`, then letters, digits, `_` and `$`.
/// - Numbers: JSON numbers without the sign (`0`, `12`, `1.5`, `2e-3`); a `-` is its own token
///   and the parser applies it. A trailing `n` makes a bigint (`12n`), which takes no fraction
///   or exponent. Leading zeros, a `.` or exponent without digits, and a name right after a
///   number (`5px`) are errors.
/// - Strings: in double or single quotes, on one line, with the JSON escapes (`\"`, `\\`, `\/`,
///   `\b`, `\f`, `\n`, `\r`, `\t`, `\uXXXX` with surrogate pairs) plus `\'`.
/// - Punctuation: `. , : ( ) [ ] { } = => -`. Whitespace separates tokens.
///
/// Lexing stops at the first error, which becomes a final ``CallToken/Kind/invalid(_:)``
/// token so that the parser reports errors in source order.
struct CallExpressionLexer {
    /// The source, one element per column.
    private let characters: [Character]
    /// The index of the next character to read.
    private var position = 0

    /// Creates a lexer over `source`.
    init(_ source: String) {
        characters = Array(source)
    }

    /// All tokens, ending with an ``CallToken/Kind/end`` or ``CallToken/Kind/invalid(_:)``.
    static func tokenize(_ source: String) -> [CallToken] {
        var lexer = CallExpressionLexer(source)
        var tokens: [CallToken] = []
        while true {
            do {
                let token = try lexer.nextToken()
                tokens.append(token)
                if token.kind == .end { return tokens }
            } catch {
                tokens.append(CallToken(kind: .invalid(error), column: error.column))
                return tokens
            }
        }
    }

    /// Reads the next token, skipping whitespace.
    mutating func nextToken() throws(CallExpressionError) -> CallToken {
        while let character = peek(), character.isWhitespace {
            position += 1
        }
        let column = position + 1
        guard let character = peek() else {
            return CallToken(kind: .end, column: column)
        }
        if Self.startsName(character) {
            return CallToken(kind: .identifier(readName()), column: column)
        }
        if Self.isDigit(character) {
            return CallToken(kind: try readNumber(), column: column)
        }
        if character == "\"" || character == "'" {
            return CallToken(kind: .string(try readString()), column: column)
        }
        if character == "=", peek(offset: 1) == ">" {
            position += 2
            return CallToken(kind: .punctuation(.arrow), column: column)
        }
        if let punctuation = CallToken.Punctuation(rawValue: String(character)) {
            position += 1
            return CallToken(kind: .punctuation(punctuation), column: column)
        }
        throw CallExpressionError(.unexpectedCharacter(character), column: column)
    }

    // MARK: - Characters

    /// The character `offset` places ahead, or `nil` past the end.
    private func peek(offset: Int = 0) -> Character? {
        let index = position + offset
        return index < characters.count ? characters[index] : nil
    }

    /// Whether `character` can start a name.
    private static func startsName(_ character: Character) -> Bool {
        character.isLetter || character == "_" || character == "$"
    }

    /// Whether `character` can continue a name.
    private static func continuesName(_ character: Character) -> Bool {
        startsName(character) || character.isNumber
    }

    /// Whether `character` is an ASCII digit.
    private static func isDigit(_ character: Character) -> Bool {
        character.isASCII && character.isWholeNumber
    }

    // MARK: - Names

    /// Reads a name.
    private mutating func readName() -> String {
        let start = position
        while let character = peek(), Self.continuesName(character) {
            position += 1
        }
        return String(characters[start..<position])
    }

    // MARK: - Numbers

    /// Reads a number or bigint literal.
    private mutating func readNumber() throws(CallExpressionError) -> CallToken.Kind {
        let start = position
        if let reason = scanNumber() {
            let text = String(characters[start..<position])
            throw CallExpressionError(.invalidNumber(text, reason: reason), column: start + 1)
        }
        let text = String(characters[start..<position])
        return text.hasSuffix("n") ? .bigint(String(text.dropLast())) : .number(text)
    }

    /// Moves past a number literal; returns what is wrong with it, or `nil` when it is good.
    private mutating func scanNumber() -> String? {
        let start = position
        let leadingZero = peek() == "0"
        readDigits()
        if leadingZero, position - start > 1 {
            return "a number cannot start with 0 unless it is 0"
        }
        var isIntegral = true
        if peek() == "." {
            isIntegral = false
            position += 1
            guard readDigits() > 0 else { return "expected a digit after '.'" }
        }
        if peek() == "e" || peek() == "E" {
            isIntegral = false
            position += 1
            if peek() == "+" || peek() == "-" { position += 1 }
            guard readDigits() > 0 else { return "expected a digit in the exponent" }
        }
        if peek() == "n" {
            position += 1
            guard isIntegral else { return "a bigint cannot have a fraction or an exponent" }
        }
        guard let next = peek(), Self.continuesName(next) || next == "." else { return nil }
        position += 1
        return next == "." ? "a number has at most one '.'" : "a name cannot follow a number directly"
    }

    /// Reads ASCII digits; returns how many.
    @discardableResult
    private mutating func readDigits() -> Int {
        let start = position
        while let character = peek(), Self.isDigit(character) {
            position += 1
        }
        return position - start
    }

    // MARK: - Strings

    /// Reads a quoted string starting at its opening quote; returns its value.
    private mutating func readString() throws(CallExpressionError) -> String {
        let openingColumn = position + 1
        guard let quote = peek() else {
            throw CallExpressionError(.unterminatedString, column: openingColumn)
        }
        position += 1
        var value = ""
        while true {
            guard let character = peek(), !character.isNewline else {
                throw CallExpressionError(.unterminatedString, column: openingColumn)
            }
            if character == quote {
                position += 1
                return value
            }
            if character == "\\" {
                try readEscape(into: &value, openingColumn: openingColumn)
            } else {
                value.append(character)
                position += 1
            }
        }
    }

    /// Reads an escape sequence starting at its backslash and appends what it stands for.
    private mutating func readEscape(into value: inout String, openingColumn: Int) throws(CallExpressionError) {
        let column = position + 1
        position += 1
        guard let letter = peek(), !letter.isNewline else {
            throw CallExpressionError(.unterminatedString, column: openingColumn)
        }
        position += 1
        switch letter {
        case "\"", "'", "\\", "/":
            value.append(letter)
        case "b":
            value.append("\u{08}")
        case "f":
            value.append("\u{0C}")
        case "n":
            value.append("\n")
        case "r":
            value.append("\r")
        case "t":
            value.append("\t")
        case "u":
            value.unicodeScalars.append(try readUnicodeEscape(column: column))
        default:
            throw CallExpressionError(.invalidEscape("\\\(letter)"), column: column)
        }
    }

    /// Reads the `XXXX` of a `\uXXXX` escape (the `\u` already read), and a second escape for
    /// the low half when the first is a high surrogate.
    private mutating func readUnicodeEscape(column: Int) throws(CallExpressionError) -> Unicode.Scalar {
        let first = try readHexQuad(column: column)
        if let scalar = Unicode.Scalar(first) {
            return scalar
        }
        let firstText = "\\u" + String(characters[position - 4..<position])
        guard (0xD800...0xDBFF).contains(first), peek() == "\\", peek(offset: 1) == "u" else {
            throw CallExpressionError(.loneSurrogate(firstText), column: column)
        }
        let secondColumn = position + 1
        position += 2
        let second = try readHexQuad(column: secondColumn)
        guard (0xDC00...0xDFFF).contains(second),
            let scalar = Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))
        else {
            throw CallExpressionError(.loneSurrogate(firstText), column: column)
        }
        return scalar
    }

    /// Reads four hex digits; `column` is the escape's backslash, for the error.
    private mutating func readHexQuad(column: Int) throws(CallExpressionError) -> UInt32 {
        var code: UInt32 = 0
        for _ in 0..<4 {
            guard let character = peek(), character.isASCII, let digit = character.hexDigitValue else {
                let text = "\\u" + String(characters[(column + 1)..<position])
                throw CallExpressionError(.invalidEscape(text), column: column)
            }
            code = code * 16 + UInt32(digit)
            position += 1
        }
        return code
    }
}
