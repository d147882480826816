/// Plain-text formatting for benchmark reports, independent of any locale.
public enum ReportFormat {
    /// `value` with exactly `decimals` digits after the point, for example `12.35`.
    public static func fixed(_ value: Double, decimals: Int = 2) -> String {
        guard value.isFinite else { return "\(value)" }
        let places = max(0, min(decimals, 9))
        var scale: Int64 = 1
        for _ in 0..<places {
            scale *= 10
        }
        let scaled = (value.magnitude * Double(scale)).rounded()
        guard scaled < 9.0e18 else { return "\(value)" }
        let units = Int64(scaled)
        var text = units != 0 && value < 0 ? "-" : ""
        text += String(units / scale)
        if places > 0 {
            let fraction = String(units % scale)
            text += "." + String(repeating: "0", count: places - fraction.count) + fraction
        }
        return text
    }

    /// `value` rounded to a whole number with thousands separated by commas, for example
    /// `1,234,568`.
    public static func grouped(_ value: Double) -> String {
        guard value.isFinite, value.magnitude < 9.0e18 else { return "\(value)" }
        let whole = Int64(value.rounded())
        let digits = Array(String(whole.magnitude))
        var text = whole < 0 ? "-" : ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index).isMultiple(of: 3) {
                text.append(",")
            }
            text.append(digit)
        }
        return text
    }

    /// A byte count in the largest fitting binary unit: `147 B`, `64.0 KiB`, `1.00 MiB`.
    public static func size(_ bytes: Int) -> String {
        if bytes < 1024 {
            return "\(bytes) B"
        }
        if bytes < 1024 * 1024 {
            return fixed(Double(bytes) / 1024, decimals: 1) + " KiB"
        }
        return fixed(Double(bytes) / (1024 * 1024), decimals: 2) + " MiB"
    }

    /// `text` padded with spaces on the left to `width` characters.
    public static func right(_ text: String, _ width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }

    /// `text` padded with spaces on the right to `width` characters.
    public static func left(_ text: String, _ width: Int) -> String {
        text + String(repeating: " ", count: max(0, width - text.count))
    }
}
