/// One command-line argument of `capnweb call`: an expression, optionally bound to a name that
/// later statements can use (`todo = createTodo("milk")`).
struct CallStatement: Sendable {
    /// The name the result is bound to, or `nil` for a plain expression.
    var binding: String?
    /// The expression to evaluate.
    var expression: CallExpression

    /// Parses one statement; see ``CallExpressionParser``.
    init(parsing source: String) throws(CallExpressionError) {
        self = try CallExpressionParser.parseStatement(source)
    }

    /// Creates a statement.
    init(binding: String? = nil, expression: CallExpression) {
        self.binding = binding
        self.expression = expression
    }
}
