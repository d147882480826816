/// A JSON value that keeps integers exact and object keys in order.
///
/// Integers and doubles are kept apart: `1` parses as ``integer(_:)`` and `1.0` or `1e2` as
/// ``double(_:)``. An integer literal outside the range of `Int64` becomes a double, as it would
/// in JavaScript. Equality follows JSON's meaning, with one refinement: ``integer(_:)`` and
/// ``double(_:)`` never compare equal, so `1` and `1.0` are different values. Objects compare
/// equal when they hold the same keys with equal values, whatever the order (see ``JSONObject``).
///
/// A `.double` is meant to hold a finite number; writing a non-finite one as text fails with
/// ``WireError/Code/nonFiniteNumber``.
///
/// ```swift
/// let message: JSONValue = ["push", ["pipeline", 0, ["square"], [5]]]
/// let name = message[0]?.stringValue    // "push"
/// ```
@frozen
public enum JSONValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number written without fraction or exponent that fits in `Int64`, kept exact.
    case integer(Int64)
    /// Any other number.
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object, with its keys in insertion order.
    case object(JSONObject)
}

// MARK: - Accessors

extension JSONValue {
    /// `true` for ``null``.
    @inlinable
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The value of a ``bool(_:)``, otherwise `nil`.
    @inlinable
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The value of an ``integer(_:)``, or of a ``double(_:)`` that holds an integer exactly;
    /// otherwise `nil`.
    @inlinable
    public var int64Value: Int64? {
        switch self {
        case .integer(let value):
            return value
        case .double(let value):
            return Int64(exactly: value)
        default:
            return nil
        }
    }

    /// ``int64Value`` converted to `Int` when it fits, otherwise `nil`.
    @inlinable
    public var intValue: Int? {
        guard let value = int64Value else { return nil }
        return Int(exactly: value)
    }

    /// The number held by an ``integer(_:)`` or a ``double(_:)`` as a `Double`, otherwise `nil`.
    ///
    /// Integers beyond 2^53 are rounded to the nearest double.
    @inlinable
    public var doubleValue: Double? {
        switch self {
        case .integer(let value):
            return Double(value)
        case .double(let value):
            return value
        default:
            return nil
        }
    }

    /// The value of a ``string(_:)``, otherwise `nil`.
    @inlinable
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The elements of an ``array(_:)``, otherwise `nil`.
    @inlinable
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The members of an ``object(_:)``, otherwise `nil`.
    @inlinable
    public var objectValue: JSONObject? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The element at `index` of an array; `nil` for other values or an index out of range.
    @inlinable
    public subscript(index: Int) -> JSONValue? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }

    /// The member named `key` of an object; `nil` for other values or a missing key.
    @inlinable
    public subscript(key: String) -> JSONValue? {
        guard case .object(let object) = self else { return nil }
        return object[key]
    }

    /// A short name for the kind of value: `null`, `boolean`, `integer`, `number`, `string`,
    /// `array` or `object`. Used in error messages.
    public var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .integer: "integer"
        case .double: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}

// MARK: - Literals

extension JSONValue: ExpressibleByNilLiteral {
    /// Creates ``null``.
    @inlinable
    public init(nilLiteral: ()) { self = .null }
}

extension JSONValue: ExpressibleByBooleanLiteral {
    /// Creates a ``bool(_:)``.
    @inlinable
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension JSONValue: ExpressibleByIntegerLiteral {
    /// Creates an ``integer(_:)``.
    @inlinable
    public init(integerLiteral value: Int64) { self = .integer(value) }
}

extension JSONValue: ExpressibleByFloatLiteral {
    /// Creates a ``double(_:)``.
    @inlinable
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension JSONValue: ExpressibleByStringLiteral {
    /// Creates a ``string(_:)``.
    @inlinable
    public init(stringLiteral value: String) { self = .string(value) }
}

extension JSONValue: ExpressibleByArrayLiteral {
    /// Creates an ``array(_:)``.
    @inlinable
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
}

extension JSONValue: ExpressibleByDictionaryLiteral {
    /// Creates an ``object(_:)`` with the members in the order written; a repeated key keeps
    /// its first position and its last value.
    @inlinable
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        var object = JSONObject(minimumCapacity: elements.count)
        for (key, value) in elements {
            object[key] = value
        }
        self = .object(object)
    }
}
