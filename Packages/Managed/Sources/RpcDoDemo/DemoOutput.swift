/// How the demo prints: numbered steps and indented lines.
struct DemoOutput {
    let totalSteps: Int
    private var step = 0

    init(totalSteps: Int) {
        self.totalSteps = totalSteps
    }

    /// Starts the next step.
    mutating func step(_ title: String) {
        step += 1
        print("\n[\(step)/\(totalSteps)] \(title)")
    }

    /// One line of a step.
    func line(_ text: String) {
        print("    \(text)")
    }
}

extension Duration {
    /// `123 ms` or `1.45 s`.
    var readable: String {
        let milliseconds = Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
        if milliseconds < 1000 { return "\(Int(milliseconds.rounded())) ms" }
        return "\((milliseconds / 10).rounded() / 100) s"
    }
}

/// `1 round trip`, `2 round trips`.
func plural(_ count: Int, _ noun: String) -> String {
    "\(count) \(noun)\(count == 1 ? "" : "s")"
}
