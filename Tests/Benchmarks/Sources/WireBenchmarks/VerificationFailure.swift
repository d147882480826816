/// A benchmark input on which two implementations disagree, or an output that does not read
/// back as what was written; the run stops before timing anything.
struct VerificationFailure: Error, CustomStringConvertible {
    /// What disagreed.
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
