extension Int {
    /// `self + other`, or `Int.max` / `Int.min` where the sum does not fit: for sums of limits
    /// and lengths, where a configuration of `Int.max` ("no limit") or a length a peer announced
    /// must not trap.
    func saturatingAdding(_ other: Int) -> Int {
        let (sum, overflow) = addingReportingOverflow(other)
        guard overflow else { return sum }
        return other > 0 ? Int.max : Int.min
    }
}
