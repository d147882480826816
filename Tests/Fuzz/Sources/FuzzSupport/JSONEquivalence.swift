public import RpcWire

/// Equality of JSON values up to the spelling of numbers, with a description of the first
/// difference.
///
/// ``JSONValue`` keeps `2` (an integer) and `2.0` (a double) apart, but JSON text does not
/// promise to: a writer that follows `JSON.stringify` writes the double `2.0` as `2`, which
/// reads back as an integer. Two values are *equivalent* when they are equal except that an
/// integer and a double may match, as ``Numbers`` says. Doubles match bit for bit (so `-0.0`
/// and `0` differ), and strings and keys must have the same Unicode scalars.
public enum JSONEquivalence {
    /// When an integer and a double hold the same number.
    public enum Numbers: Sendable {
        /// Only when the double is exactly the integer: integers are exact, as ``JSONValue``
        /// keeps them.
        case exact
        /// When the integer rounds to the double, as it would in JavaScript, where every number
        /// is a double (the Cap'n Web wire format).
        case javaScript
    }

    /// Whether `lhs` and `rhs` are equivalent.
    ///
    /// - Parameters:
    ///   - sameOrder: Whether object members must also come in the same order.
    ///   - numbers: When an integer matches a double.
    public static func equivalent(_ lhs: JSONValue, _ rhs: JSONValue, sameOrder: Bool, numbers: Numbers) -> Bool {
        difference(lhs, rhs, sameOrder: sameOrder, numbers: numbers) == nil
    }

    /// The first difference between `lhs` and `rhs`, such as
    /// `at /0/id: double -9.007199254740994e+16 (= -90071992547409936) vs integer -90071992547409940`,
    /// or `nil` when they are equivalent.
    public static func difference(
        _ lhs: JSONValue, _ rhs: JSONValue, sameOrder: Bool, numbers: Numbers, at path: String = ""
    ) -> String? {
        let mismatch = "at \(path.isEmpty ? "/" : path): \(render(lhs)) vs \(render(rhs))"
        switch (lhs, rhs) {
        case (.null, .null):
            return nil
        case (.bool(let left), .bool(let right)):
            return left == right ? nil : mismatch
        case (.integer(let left), .integer(let right)):
            return left == right ? nil : mismatch
        case (.double(let left), .double(let right)):
            return left.bitPattern == right.bitPattern ? nil : mismatch
        case (.integer(let integer), .double(let double)), (.double(let double), .integer(let integer)):
            let converted: Double? =
                switch numbers {
                case .exact: Double(exactly: integer)
                case .javaScript: Double(integer)
                }
            return converted?.bitPattern == double.bitPattern ? nil : mismatch
        case (.string(let left), .string(let right)):
            return left.unicodeScalars.elementsEqual(right.unicodeScalars) ? nil : mismatch
        case (.array(let left), .array(let right)):
            guard left.count == right.count else {
                return "at \(path.isEmpty ? "/" : path): \(left.count) elements vs \(right.count)"
            }
            for (index, (leftElement, rightElement)) in zip(left, right).enumerated() {
                if let found = difference(
                    leftElement, rightElement, sameOrder: sameOrder, numbers: numbers, at: "\(path)/\(index)")
                {
                    return found
                }
            }
            return nil
        case (.object(let left), .object(let right)):
            guard left.count == right.count else {
                return "at \(path.isEmpty ? "/" : path): \(left.count) members vs \(right.count)"
            }
            for (position, member) in left.enumerated() {
                let memberPath = "\(path)/\(member.key.debugDescription)"
                let other: JSONValue
                if sameOrder {
                    let candidate = right[position]
                    guard candidate.key.unicodeScalars.elementsEqual(member.key.unicodeScalars) else {
                        return "at \(memberPath): key in position \(position) is \(candidate.key.debugDescription)"
                    }
                    other = candidate.value
                } else {
                    guard let found = right[member.key] else { return "at \(memberPath): missing" }
                    other = found
                }
                if let found = difference(member.value, other, sameOrder: sameOrder, numbers: numbers, at: memberPath) {
                    return found
                }
            }
            return nil
        default:
            return mismatch
        }
    }

    /// A value's kind and a short rendering; an integral double also shows its exact integer.
    private static func render(_ value: JSONValue) -> String {
        switch value {
        case .double(let double):
            if double == double.rounded(.towardZero), let exact = Int64(exactly: double) {
                return "double \(double) (= \(exact))"
            }
            return "double \(double)"
        case .integer(let integer):
            return "integer \(integer)"
        default:
            return "\(value.kindName) \(Excerpt.of(value.description, limit: 80))"
        }
    }
}
