/// One member of a Cap'n Web object expression: a key and an expression value.
///
/// Objects keep their members in wire order, so that decoding and re-encoding a message gives
/// the same bytes.
public struct CapnWebMember: Sendable, Hashable {
    /// The member's key.
    public var key: String
    /// The member's value.
    public var value: CapnWebExpression

    /// Creates a member.
    public init(_ key: String, _ value: CapnWebExpression) {
        self.key = key
        self.value = value
    }
}

extension CapnWebMember: CustomStringConvertible {
    /// `"key": value`.
    public var description: String {
        "\(CapnWebText.quoted(key)): \(value)"
    }
}
