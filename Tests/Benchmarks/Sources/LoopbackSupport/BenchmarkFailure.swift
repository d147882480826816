/// A benchmark that cannot run, with the reason.
public struct BenchmarkFailure: Error, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}
