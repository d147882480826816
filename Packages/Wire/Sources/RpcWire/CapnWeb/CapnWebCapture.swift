/// One capture of a Cap'n Web `remap` expression: a stub the mapping function uses.
///
/// Inside the remap instructions, capture *k* (1-based) is referred to by the ID `-k`.
public enum CapnWebCapture: Sendable, Hashable {
    /// `["import", ID]`: a stub that points at the receiver (one of its own exports).
    case `import`(Int64)
    /// `["export", ID]`: a stub of the sender, newly exported with this (negative) ID.
    case export(Int64)
}

extension CapnWebCapture: CustomStringConvertible {
    /// `import(ID)` or `export(ID)`.
    public var description: String {
        switch self {
        case .import(let id):
            "import(\(id))"
        case .export(let id):
            "export(\(id))"
        }
    }
}
