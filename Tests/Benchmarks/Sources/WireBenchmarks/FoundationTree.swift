import Foundation
import RpcWire

/// Compares our ``JSONValue`` trees with the `Any` trees `JSONSerialization` produces.
enum FoundationTree {
    /// Whether `value` and `object` hold the same JSON content: same kinds, same numbers, same
    /// strings, same array elements in order, same object members.
    static func matches(_ value: JSONValue, _ object: Any) -> Bool {
        switch value {
        case .null:
            return object is NSNull
        case .bool(let flag):
            return (object as? Bool) == flag
        case .integer(let integer):
            guard let number = object as? NSNumber else { return false }
            return number.int64Value == integer && number.doubleValue == Double(integer)
        case .double(let double):
            guard let number = object as? NSNumber else { return false }
            return number.doubleValue == double
        case .string(let string):
            guard let other = object as? String else { return false }
            return other.unicodeScalars.elementsEqual(string.unicodeScalars)
        case .array(let elements):
            guard let others = object as? [Any], others.count == elements.count else { return false }
            return zip(elements, others).allSatisfy { matches($0, $1) }
        case .object(let members):
            guard let others = object as? [String: Any], others.count == members.count else { return false }
            return members.allSatisfy { member in
                others[member.key].map { matches(member.value, $0) } ?? false
            }
        }
    }
}
