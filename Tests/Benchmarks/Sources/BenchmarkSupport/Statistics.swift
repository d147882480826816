#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The summary statistics the benchmarks report.
public enum Statistics {
    /// The median of `values`: the middle value, or the mean of the two middle values.
    ///
    /// - Precondition: `values` is not empty.
    public static func median(_ values: [Double]) -> Double {
        precondition(!values.isEmpty, "the median of no values is undefined")
        let sorted = values.sorted()
        let middle = sorted.count / 2
        if sorted.count.isMultiple(of: 2) {
            return (sorted[middle - 1] + sorted[middle]) / 2
        }
        return sorted[middle]
    }

    /// The geometric mean of `values`, the fair average of ratios.
    ///
    /// - Precondition: `values` is not empty and every value is positive.
    public static func geometricMean(_ values: [Double]) -> Double {
        precondition(!values.isEmpty, "the geometric mean of no values is undefined")
        precondition(values.allSatisfy { $0 > 0 }, "the geometric mean needs positive values")
        let logSum = values.reduce(0) { $0 + log($1) }
        return exp(logSum / Double(values.count))
    }
}
