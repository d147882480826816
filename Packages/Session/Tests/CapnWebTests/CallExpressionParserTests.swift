import Testing
import CapnWeb
import RpcWire
@testable import CapnWebCLI

/// A structural rendering of an expression, to compare trees in tests.
private func dump(_ expression: CallExpression) -> String {
    switch expression {
    case .literal(.integer(let integer)):
        return "int:\(integer)"
    case .literal(.double(let double)):
        return "double:\(RpcPayload.double(double))"
    case .literal(let payload):
        return payload.description
    case .array(let elements):
        return "array(" + elements.map(dump).joined(separator: ", ") + ")"
    case .object(let members):
        return "object(" + members.map { "\($0.0): " + dump($0.1) }.joined(separator: ", ") + ")"
    case .name(let name):
        return "name(\(name))"
    case .member(let base, let name):
        return "member(\(dump(base)), \(name))"
    case .index(let base, let key):
        return "index(\(dump(base)), \(key))"
    case .call(let callee, let arguments):
        return "call(\(dump(callee))" + arguments.map { "; " + dump($0) }.joined() + ")"
    case .map(let base, let parameter, let body):
        return "map(\(dump(base)); \(parameter) => \(dump(body)))"
    }
}

/// The dump of a parsed expression; a parse error's description when it fails.
private func parsed(_ source: String) -> String {
    do {
        return dump(try CallExpressionParser.parseExpression(source))
    } catch {
        return "error: \(error)"
    }
}

/// The error of parsing `source` as a statement, or `nil` when it parses.
private func failure(_ source: String) -> CallExpressionError? {
    do {
        _ = try CallExpressionParser.parseStatement(source)
        return nil
    } catch {
        return error
    }
}

@Suite("capnweb call expressions")
struct CallExpressionParserTests {
    // MARK: - Expressions

    @Test("A bare call reads as a call of a name")
    func bareCall() {
        #expect(parsed("square(5)") == "call(name(square); int:5)")
        #expect(parsed("  square ( 5 , 'a' , ) ") == "call(name(square); int:5; \"a\")")
        #expect(parsed("getUser()") == "call(name(getUser))")
    }

    @Test("Postfix operations chain left to right")
    func postfixChains() {
        #expect(parsed(#"a.b["c d"][0](1)(2).e"#) == #"member(call(call(index(index(member(name(a), b), "c d"), 0); int:1); int:2), e)"#)
        #expect(parsed("main.square(2)") == "call(member(name(main), square); int:2)")
        #expect(parsed("api") == "name(api)")
    }

    @Test("Any word can follow a dot or be an object key")
    func keywordsAsNames() {
        #expect(parsed("a.new.true.map") == "member(member(member(name(a), new), true), map)")
        #expect(parsed("{new: 1, null: 2}") == "object(new: int:1, null: int:2)")
    }

    @Test(
        "Literals read as payloads",
        arguments: [
            ("5", "int:5"), ("-5", "int:-5"), ("0", "int:0"), ("-0", "double:-0"), ("1.5", "double:1.5"),
            ("1.5e3", "double:1500"), ("2E-3", "double:0.002"), ("1e+2", "double:100"),
            ("9223372036854775807", "int:9223372036854775807"), ("-9223372036854775808", "int:-9223372036854775808"),
            ("9223372036854775808", "double:9223372036854776000"), ("1e400", "double:Infinity"),
            ("true", "true"), ("false", "false"), ("null", "null"), ("undefined", "undefined"),
            ("NaN", "double:NaN"), ("Infinity", "double:Infinity"), ("-Infinity", "double:-Infinity"),
            ("- 3", "int:-3"), ("123n", "123n"), ("-5n", "-5n"), ("-0n", "0n"), ("0n", "0n"),
            ("new Date(5)", "new Date(5)"), ("new Date(-1.5)", "new Date(-1.5)"), ("new Date(NaN)", "new Date(NaN)"),
            ("new Date(Infinity)", "new Date(NaN)"), ("new Date(1e3)", "new Date(1000)"),
        ])
    func literals(source: String, expected: String) {
        #expect(parsed(source) == expected)
    }

    @Test(
        "Strings take JSON escapes and either quote",
        arguments: [
            (#""plain""#, "plain"), (#"'single'"#, "single"), (#""a\"b\\c\/d""#, "a\"b\\c/d"),
            (#"'it\'s'"#, "it's"), (#""it's""#, "it's"), (#"'say "hi"'"#, "say \"hi\""),
            (#""\b\f\n\r\t""#, "\u{8}\u{C}\n\r\t"), (#""\u00e9\u00E9""#, "éé"), (#""\ud83d\ude00""#, "😀"),
            ("\"tab\there\"", "tab\there"), (#""""#, ""),
        ])
    func strings(source: String, value: String) throws {
        let expression = try CallExpressionParser.parseExpression(source)
        guard case .literal(.string(let parsedValue)) = expression else {
            Issue.record("not a string literal: \(dump(expression))")
            return
        }
        #expect(parsedValue == value)
    }

    @Test("Array and object literals hold expressions, with trailing commas allowed")
    func arraysAndObjects() {
        #expect(parsed("[]") == "array()")
        #expect(parsed("{}") == "object()")
        #expect(parsed("[1, [2], x.y,]") == "array(int:1, array(int:2), member(name(x), y))")
        #expect(
            parsed(#"{a: 1, "b c": f(2), 'd': [], e,}"#)
                == #"object(a: int:1, b c: call(name(f); int:2), d: array(), e: name(e))"#)
        #expect(parsed("{a: 1, a: 2}") == "object(a: int:1, a: int:2)")
    }

    @Test("Parentheses group an expression")
    func grouping() {
        #expect(parsed("(a).b") == "member(name(a), b)")
        #expect(parsed("((5))") == "int:5")
    }

    // MARK: - Map

    @Test("map with an arrow function becomes a map")
    func map() {
        #expect(parsed("todos.map(t => t.title)") == "map(name(todos); t => member(name(t), title))")
        #expect(parsed("todos.map((t) => {id: t.id})") == "map(name(todos); t => object(id: member(name(t), id)))")
        #expect(parsed("todos.map(t => ({id: t}))") == "map(name(todos); t => object(id: name(t)))")
        #expect(parsed("list().map(x => x,)") == "map(call(name(list)); x => name(x))")
    }

    @Test("Maps nest, and the map result takes postfix operations")
    func nestedMaps() {
        #expect(
            parsed("users.map(u => u.friends.map(f => [u.id, f]))")
                == "map(name(users); u => map(member(name(u), friends); f => array(member(name(u), id), name(f))))")
        #expect(parsed("a.map(x => x)[0].b") == "member(index(map(name(a); x => name(x)), 0), b)")
    }

    @Test("A call to a member named map without an arrow stays a call")
    func mapWithoutArrow() {
        #expect(parsed("a.map(f)") == "call(member(name(a), map); name(f))")
        #expect(parsed("a.map()") == "call(member(name(a), map))")
        #expect(parsed("a.map(1, 2)") == "call(member(name(a), map); int:1; int:2)")
    }

    // MARK: - Statements

    @Test("A statement may bind its result to a name")
    func statements() throws {
        let bound = try CallExpressionParser.parseStatement(#"todo = createTodo("milk")"#)
        #expect(bound.binding == "todo")
        #expect(dump(bound.expression) == #"call(name(createTodo); "milk")"#)

        let plain = try CallStatement(parsing: "todo.id")
        #expect(plain.binding == nil)
        #expect(dump(plain.expression) == "member(name(todo), id)")

        let arrowLike = try CallStatement(parsing: "x=1")
        #expect(arrowLike.binding == "x")
    }

    // MARK: - Description

    @Test(
        "The description reads back as the same expression",
        arguments: [
            "square(5)", #"a.b["c d"][0]"#, "todos.map(t => {\"id\":t.id,\"n\":[1,-0,NaN,5n]})",
            "f(undefined,null,true,-Infinity,new Date(5),new Date(NaN))", #"f("a\"b\n")"#, "(5).x", "{}",
        ])
    func descriptionRoundTrip(source: String) throws {
        let expression = try CallExpressionParser.parseExpression(source)
        let again = try CallExpressionParser.parseExpression(expression.description)
        #expect(dump(again) == dump(expression))
    }

    @Test("The description is compact source text")
    func descriptionText() throws {
        #expect(try CallExpressionParser.parseExpression("a . map ( ( t ) => [ t , 'x' ] )").description == #"a.map(t => [t,"x"])"#)
        #expect(CallExpression.member(.name("a"), "b c").description == #"a["b c"]"#)
    }

    // MARK: - Errors

    @Test(
        "Errors name the problem and its column",
        arguments: [
            ("square(5", CallExpressionError.Kind.missingClose(closer: ")", opener: "(", openedAt: 7, found: "end of input"), 9),
            ("square(5 6)", .missingClose(closer: ")", opener: "(", openedAt: 7, found: "'6'"), 10),
            ("[1, 2", .missingClose(closer: "]", opener: "[", openedAt: 1, found: "end of input"), 6),
            ("{a: 1 b: 2}", .missingClose(closer: "}", opener: "{", openedAt: 1, found: "'b'"), 7),
            ("a[0", .missingClose(closer: "]", opener: "[", openedAt: 2, found: "end of input"), 4),
            ("(a", .missingClose(closer: ")", opener: "(", openedAt: 1, found: "end of input"), 3),
            ("f(\"abc", .unterminatedString, 3),
            ("'abc\"", .unterminatedString, 1),
            ("\"ab\ncd\"", .unterminatedString, 1),
            (#"f('x\q')"#, .invalidEscape(#"\q"#), 5),
            (#""\u12G4""#, .invalidEscape(#"\u12"#), 2),
            (#""\ud800""#, .loneSurrogate(#"\ud800"#), 2),
            (#""\ud800\u0041""#, .loneSurrogate(#"\ud800"#), 2),
            (#""\ude00""#, .loneSurrogate(#"\ude00"#), 2),
            ("01", .invalidNumber("01", reason: "a number cannot start with 0 unless it is 0"), 1),
            ("f(1.)", .invalidNumber("1.", reason: "expected a digit after '.'"), 3),
            ("1e+", .invalidNumber("1e+", reason: "expected a digit in the exponent"), 1),
            ("1.5n", .invalidNumber("1.5n", reason: "a bigint cannot have a fraction or an exponent"), 1),
            ("5px", .invalidNumber("5p", reason: "a name cannot follow a number directly"), 1),
            ("1.2.3", .invalidNumber("1.2.", reason: "a number has at most one '.'"), 1),
            ("f(x => x)", .arrowOutsideMap, 3),
            ("x => 1", .arrowOutsideMap, 1),
            ("(x) => 1", .arrowOutsideMap, 1),
            ("[x => 1]", .arrowOutsideMap, 2),
            ("a.map(x => x, 1)", .arrowOutsideMap, 7),
            ("a.map(1, x => x)", .arrowOutsideMap, 10),
            ("a[\"map\"](x => x)", .arrowOutsideMap, 10),
            ("a.map((x, y) => x)", .arrowParameterCount, 7),
            ("a.map(() => 1)", .arrowParameterCount, 7),
            ("a.map(true => 1)", .reservedName("true"), 7),
            ("a[b]", .invalidIndex(found: "'b'"), 3),
            ("a[1.5]", .invalidIndex(found: "'1.5'"), 3),
            ("a[-1]", .invalidIndex(found: "'-'"), 3),
            ("new Foo(1)", .unsupportedNew(found: "'Foo'"), 5),
            ("new Date(\"2024\")", .invalidDate(found: "string \"2024\""), 10),
            ("new Date()", .invalidDate(found: "')'"), 10),
            ("new Date(1, 2)", .missingClose(closer: ")", opener: "(", openedAt: 9, found: "','"), 11),
            ("new Date 5", .unexpectedToken(found: "'5'", expected: "'(' after 'new Date'"), 10),
            ("true = 1", .reservedName("true"), 1),
            ("main = 1", .reservedName("main"), 1),
            ("{null}", .reservedName("null"), 2),
            ("a.b = 1", .invalidAssignmentTarget, 5),
            ("a = b = 1", .invalidAssignmentTarget, 7),
            ("", .unexpectedToken(found: "end of input", expected: "an expression"), 1),
            ("x = ", .unexpectedToken(found: "end of input", expected: "an expression"), 5),
            ("a #", .unexpectedCharacter("#"), 3),
            ("1 + 2", .unexpectedCharacter("+"), 3),
            ("f(] \"abc", .unexpectedToken(found: "']'", expected: "an expression"), 3),
            ("{1: 2}", .unexpectedToken(found: "'1'", expected: "a key (a name or a string)"), 2),
            ("{a 1}", .unexpectedToken(found: "'1'", expected: "':' after the key"), 4),
            ("a.5", .unexpectedToken(found: "'5'", expected: "a property name after '.'"), 3),
            ("[1,,2]", .unexpectedToken(found: "','", expected: "an expression"), 4),
            ("a b", .unexpectedToken(found: "'b'", expected: "the end of the expression"), 3),
            ("-x", .unexpectedToken(found: "'x'", expected: "a number after '-'"), 2),
            ("f(-NaN)", .unexpectedToken(found: "'NaN'", expected: "a number after '-'"), 4),
            ("é(ü", .missingClose(closer: ")", opener: "(", openedAt: 2, found: "end of input"), 4),
        ])
    func errors(source: String, kind: CallExpressionError.Kind, column: Int) {
        let error = failure(source)
        #expect(error == CallExpressionError(kind, column: column), "source: \(source)")
    }

    @Test("An error describes itself with its column and can point into the source")
    func errorText() throws {
        let error = try #require(failure("square(5"))
        #expect(error.description == "column 9: missing ')' to close '(' at column 7, found end of input")
        #expect(error.pointing(into: "square(5") == "column 9: missing ')' to close '(' at column 7, found end of input\n  square(5\n          ^")
        #expect(CallExpressionError(.arrowOutsideMap, column: 3).description == "column 3: an arrow function can only be the argument of '.map(x => ...)'")
        #expect(CallExpressionError(.unterminatedString, column: 1).description == "column 1: unterminated string: the closing quote is missing")
    }
}
