public import RpcWire

/// Helpers that stop the process, through `preconditionFailure`, when a checked property of
/// the Wire layer does not hold; libFuzzer then saves the input that caused it.
public enum Invariant {
    /// The result of `operation`, which must not fail.
    ///
    /// - Parameter what: What the operation does, for the failure message.
    public static func mustSucceed<Value>(
        _ what: @autoclosure () -> String,
        _ operation: () throws(WireError) -> Value
    ) -> Value {
        do {
            return try operation()
        } catch {
            preconditionFailure("\(what()) failed: \(error) [\(error.code)]")
        }
    }

    /// Checks that two entry points that should behave alike both succeed with equal results
    /// or both fail with equal errors.
    ///
    /// - Returns: The common value, or `nil` when both failed.
    public static func agree<Value: Equatable>(
        _ first: Result<Value, WireError>,
        _ second: Result<Value, WireError>,
        _ what: @autoclosure () -> String
    ) -> Value? {
        switch (first, second) {
        case (.success(let left), .success(let right)):
            precondition(left == right, "\(what()): the two entry points give different values")
            return left
        case (.failure(let left), .failure(let right)):
            precondition(left == right, "\(what()): the two entry points fail differently: \(left) / \(right)")
            return nil
        case (.success, .failure(let error)), (.failure(let error), .success):
            preconditionFailure("\(what()): one entry point succeeds, the other fails with \(error)")
        }
    }

    /// Checks that an error about text of `count` bytes points inside it (or just past its end).
    public static func locationIsInBounds(_ error: WireError, count: Int) {
        guard let location = error.location else { return }
        precondition(
            location.offset >= 0 && location.offset <= count && location.line >= 1 && location.column >= 1,
            "error location \(location) lies outside an input of \(count) bytes: \(error)")
    }
}
