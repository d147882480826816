/// One piece of work to time: a closure that performs a single operation.
///
/// The closure should consume its result with ``blackHole(_:)``. It runs many times in a row, so
/// it must not change state that later runs depend on.
public struct Workload {
    /// A short name used in reports, for example `ours` or `JSONSerialization`.
    public var name: String
    /// The size of the input one operation handles, used to compute bytes per second.
    public var bytesPerOperation: Int
    /// Performs one operation.
    public var operation: () throws -> Void

    /// Creates a workload.
    ///
    /// - Parameters:
    ///   - name: A short name used in reports.
    ///   - bytesPerOperation: The size of the input one operation handles.
    ///   - operation: Performs one operation.
    public init(_ name: String, bytesPerOperation: Int, _ operation: @escaping () throws -> Void) {
        self.name = name
        self.bytesPerOperation = bytesPerOperation
        self.operation = operation
    }
}
