/// Collects ours-over-baseline ratios per comparison and reports their geometric means.
///
/// The final `ratio` lines have a fixed shape, `ratio <name> <x.xx>`, meant for scripts:
///
/// ```swift
/// var summary = RatioSummary()
/// summary.declare("parse-vs-JSONSerialization", label: "parse", goal: 8)
/// summary.record(comparison.ratio, for: "parse-vs-JSONSerialization")
/// summary.summaryLines.forEach { print($0) }
/// summary.ratioLines.forEach { print($0) }
/// ```
public struct RatioSummary: Sendable {
    private struct Entry: Sendable {
        var name: String
        var label: String
        var goal: Double?
        var ratios: [Double]
    }

    private var entries: [Entry] = []

    /// Creates an empty summary.
    public init() {}

    /// Declares a ratio; lines are printed in declaration order.
    ///
    /// - Parameters:
    ///   - name: The name on the `ratio` line, for example `parse-vs-JSONSerialization`.
    ///   - label: A short label for the summary line, for example `parse`.
    ///   - goal: The geometric mean the ratio should reach, if there is one.
    public mutating func declare(_ name: String, label: String, goal: Double? = nil) {
        guard !entries.contains(where: { $0.name == name }) else { return }
        entries.append(Entry(name: name, label: label, goal: goal, ratios: []))
    }

    /// Records one ratio (one input) under `name`, declaring it first when needed.
    public mutating func record(_ ratio: Double, for name: String) {
        if let index = entries.firstIndex(where: { $0.name == name }) {
            entries[index].ratios.append(ratio)
        } else {
            entries.append(Entry(name: name, label: name, goal: nil, ratios: [ratio]))
        }
    }

    /// The geometric mean of the ratios recorded under `name`, or `nil` when there are none.
    public func geometricMean(for name: String) -> Double? {
        guard let entry = entries.first(where: { $0.name == name }), !entry.ratios.isEmpty else {
            return nil
        }
        return Statistics.geometricMean(entry.ratios)
    }

    /// One line per ratio: its geometric mean, how many inputs it covers, and its goal.
    public var summaryLines: [String] {
        entries.compactMap { entry in
            guard let mean = geometricMean(for: entry.name) else { return nil }
            var line = "summary " + ReportFormat.left(entry.label, 10) + "geometric mean x"
                + ReportFormat.fixed(mean) + " over \(entry.ratios.count) inputs"
            if let goal = entry.goal {
                line += " (goal >= x" + ReportFormat.fixed(goal) + ": " + (mean >= goal ? "met" : "NOT met") + ")"
            }
            return line
        }
    }

    /// One `ratio <name> <x.xx>` line per ratio.
    public var ratioLines: [String] {
        entries.compactMap { entry in
            geometricMean(for: entry.name).map { Self.ratioLine(entry.name, $0) }
        }
    }

    /// The machine-readable line `ratio <name> <x.xx>`.
    public static func ratioLine(_ name: String, _ value: Double) -> String {
        "ratio \(name) " + ReportFormat.fixed(value)
    }
}
