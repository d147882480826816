/// Consumes `value` in a way the optimizer cannot see through, so the work that produced it is
/// never removed as dead code.
///
/// Call it on the result of every timed operation:
///
/// ```swift
/// let workload = Workload("parse", bytesPerOperation: bytes.count) {
///     blackHole(try parser.parse(bytes))
/// }
/// ```
@inline(never)
@_optimize(none)
public func blackHole<Value>(_ value: Value) {}
