/// The INIT object of a Cap'n Web `request` or `response` expression.
///
/// Only the `body` member is an expression (`null`, a string, `bytes` or a `readable`); every
/// other member (`method`, `headers` as an array of pairs, `status`, `duplex`, ...) is plain
/// JSON and is passed through untouched. Members keep their wire order, so that decoding and
/// re-encoding give the same bytes.
///
/// ```swift
/// let requestInit = CapnWebFetchInit([
///     .field("method", "POST"),
///     .field("headers", [["content-type", "text/plain"]]),
///     .body(.string("hello")),
///     .field("duplex", "half"),
/// ])
/// ```
public struct CapnWebFetchInit: Sendable, Hashable {
    /// One member of the INIT object.
    public enum Member: Sendable, Hashable {
        /// The `body` member, an expression.
        case body(CapnWebExpression)
        /// Any other member, plain JSON.
        case field(String, JSONValue)

        /// The member's key on the wire.
        public var key: String {
            switch self {
            case .body:
                "body"
            case .field(let key, _):
                key
            }
        }
    }

    /// The members, in wire order. Keys must be unique, and a field must not be named `body`;
    /// encoding rejects an INIT that breaks either rule.
    public var members: [Member]

    /// Creates an INIT object with the given members.
    public init(_ members: [Member] = []) {
        self.members = members
    }

    /// The `body` expression. Setting it replaces the body in place or appends one; setting
    /// `nil` removes it.
    public var body: CapnWebExpression? {
        get {
            for member in members {
                if case .body(let body) = member { return body }
            }
            return nil
        }
        set {
            let position = members.firstIndex { member in
                if case .body = member { return true }
                return false
            }
            switch (position, newValue) {
            case (let position?, let newValue?):
                members[position] = .body(newValue)
            case (let position?, nil):
                members.remove(at: position)
            case (nil, let newValue?):
                members.append(.body(newValue))
            case (nil, nil):
                break
            }
        }
    }

    /// The plain JSON member named `key`; `nil` when absent. Setting replaces the value in
    /// place or appends a member; setting `nil` removes it.
    public subscript(field key: String) -> JSONValue? {
        get {
            for member in members {
                if case .field(let name, let value) = member, name.utf8.elementsEqual(key.utf8) {
                    return value
                }
            }
            return nil
        }
        set {
            let position = members.firstIndex { member in
                if case .field(let name, _) = member { return name.utf8.elementsEqual(key.utf8) }
                return false
            }
            switch (position, newValue) {
            case (let position?, let newValue?):
                members[position] = .field(key, newValue)
            case (let position?, nil):
                members.remove(at: position)
            case (nil, let newValue?):
                members.append(.field(key, newValue))
            case (nil, nil):
                break
            }
        }
    }
}

extension CapnWebFetchInit: CustomStringConvertible {
    /// The members in order, for example `{"method": "POST", "body": "hi"}`; plain JSON fields
    /// are shown compactly.
    public var description: String {
        var text = "{"
        for (position, member) in members.enumerated() {
            if position > 0 { text += ", " }
            text += CapnWebText.quoted(member.key)
            text += ": "
            switch member {
            case .body(let body):
                text += body.description
            case .field(_, let value):
                CapnWebText.appendJSON(value, to: &text)
            }
        }
        text += "}"
        return text
    }
}
