/// One step of a property path in a Cap'n Web `import`, `pipeline` or `remap` expression.
///
/// On the wire a path is a JSON array of strings and numbers: `["profile", "displayName"]` or
/// `["items", 3]`. A string names a property; a number indexes an array (the reference peer only
/// reaches array elements through numbers, never through the string `"3"`).
///
/// ```swift
/// let path: [CapnWebPathKey] = ["users", 0, "name"]
/// ```
public enum CapnWebPathKey: Sendable, Hashable {
    /// A property name, written as a JSON string.
    case property(String)
    /// An array index, written as a JSON number.
    case index(Int64)
}

extension CapnWebPathKey: ExpressibleByStringLiteral {
    /// Creates a ``property(_:)``.
    public init(stringLiteral value: String) {
        self = .property(value)
    }
}

extension CapnWebPathKey: ExpressibleByIntegerLiteral {
    /// Creates an ``index(_:)``.
    public init(integerLiteral value: Int64) {
        self = .index(value)
    }
}

extension CapnWebPathKey: CustomStringConvertible {
    /// A property as a quoted string (`"square"`), an index as a bare number (`3`).
    public var description: String {
        switch self {
        case .property(let name):
            CapnWebText.quoted(name)
        case .index(let index):
            String(index)
        }
    }
}
