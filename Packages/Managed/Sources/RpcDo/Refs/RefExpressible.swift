/// Anything that stands for a recorded expression (every ``RpcRef``).
protocol RefExpressible {
    var refExpression: RefExpression { get }
}
