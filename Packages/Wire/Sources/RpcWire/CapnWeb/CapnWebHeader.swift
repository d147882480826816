/// One HTTP header of a Cap'n Web `headers` expression, written on the wire as a
/// `[name, value]` pair.
public struct CapnWebHeader: Sendable, Hashable {
    /// The header name, as sent (the reference sender lower-cases it).
    public var name: String
    /// The header value.
    public var value: String

    /// Creates a header.
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

extension CapnWebHeader: CustomStringConvertible {
    /// `"name": "value"`.
    public var description: String {
        "\(CapnWebText.quoted(name)): \(CapnWebText.quoted(value))"
    }
}
