/// The members of a JSON object: unique keys, kept in insertion order.
///
/// Keys are compared by their Unicode scalars (byte for byte in UTF-8), as JavaScript and the
/// JSON specification compare them, not by Swift's canonical string equivalence: `"é"` written
/// as one scalar and as `e` plus a combining accent are two different keys.
///
/// **Duplicate keys.** Setting a key that is already present replaces its value and keeps its
/// first position. The parser applies the same rule by default (the last value wins, at the
/// first position), which is what `JSON.parse` does in JavaScript; it can be configured to
/// reject duplicates instead (``JSONParser/Configuration/DuplicateKeyPolicy``).
///
/// Two objects are equal when they hold the same keys with equal values, in any order.
/// Look-ups are linear for small objects and use a hash index once an object grows past a few
/// members.
public struct JSONObject: Sendable {
    /// One member of an object.
    public typealias Element = (key: String, value: JSONValue)

    @usableFromInline
    struct Member: Sendable {
        @usableFromInline var key: String
        @usableFromInline var value: JSONValue

        @inlinable
        init(key: String, value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    /// Objects with more members than this get a hash index for look-ups.
    @usableFromInline
    static var indexThreshold: Int { 12 }

    @usableFromInline
    var members: [Member]

    @usableFromInline
    var index: [JSONKey: Int]?

    /// Creates an empty object.
    @inlinable
    public init() {
        members = []
        index = nil
    }

    /// Creates an empty object with room for `minimumCapacity` members.
    @inlinable
    public init(minimumCapacity: Int) {
        members = []
        members.reserveCapacity(minimumCapacity)
        index = nil
    }

    /// Creates an object from key-value pairs in order; a repeated key keeps its first position
    /// and its last value.
    @inlinable
    public init<S: Sequence>(_ elements: S) where S.Element == (String, JSONValue) {
        self.init(minimumCapacity: elements.underestimatedCount)
        for (key, value) in elements {
            self[key] = value
        }
    }

    /// The keys, in order.
    @inlinable
    public var keys: [String] { members.map(\.key) }

    /// The values, in the order of their keys.
    @inlinable
    public var values: [JSONValue] { members.map(\.value) }

    /// The position of `key`, or `nil` when the object has no such member.
    @inlinable
    public func position(ofKey key: String) -> Int? {
        if let index {
            return index[JSONKey(key)]
        }
        for position in members.indices where JSONKey.equal(members[position].key, key) {
            return position
        }
        return nil
    }

    /// The value for `key`; setting `nil` removes the member.
    @inlinable
    public subscript(key: String) -> JSONValue? {
        get {
            guard let position = position(ofKey: key) else { return nil }
            return members[position].value
        }
        set {
            if let newValue {
                updateValue(newValue, forKey: key)
            } else {
                removeValue(forKey: key)
            }
        }
    }

    /// Sets the value for `key`, keeping the key's position when it is already present.
    ///
    /// - Returns: The value that was replaced, or `nil` when the key is new.
    @inlinable
    @discardableResult
    public mutating func updateValue(_ value: JSONValue, forKey key: String) -> JSONValue? {
        if let position = position(ofKey: key) {
            let old = members[position].value
            members[position].value = value
            return old
        }
        appendNew(key: key, value: value)
        return nil
    }

    /// Removes the member named `key`.
    ///
    /// - Returns: The removed value, or `nil` when there was none.
    @inlinable
    @discardableResult
    public mutating func removeValue(forKey key: String) -> JSONValue? {
        guard let position = position(ofKey: key) else { return nil }
        let removed = members.remove(at: position)
        rebuildIndex()
        return removed.value
    }

    /// Appends a member whose key is known not to be present.
    @inlinable
    mutating func appendNew(key: String, value: JSONValue) {
        members.append(Member(key: key, value: value))
        if index != nil {
            index?[JSONKey(key)] = members.count - 1
        } else if members.count > Self.indexThreshold {
            rebuildIndex()
        }
    }

    @inlinable
    mutating func rebuildIndex() {
        guard members.count > Self.indexThreshold else {
            index = nil
            return
        }
        var newIndex = [JSONKey: Int](minimumCapacity: members.count)
        for position in members.indices {
            newIndex[JSONKey(members[position].key)] = position
        }
        index = newIndex
    }
}

// MARK: - Collection

extension JSONObject: RandomAccessCollection {
    /// The position of the first member.
    @inlinable
    public var startIndex: Int { 0 }

    /// The position one past the last member.
    @inlinable
    public var endIndex: Int { members.count }

    /// The member at `position`.
    @inlinable
    public subscript(position: Int) -> Element {
        let member = members[position]
        return (member.key, member.value)
    }
}

// MARK: - Equality and hashing

extension JSONObject: Hashable {
    /// Whether both objects hold the same keys with equal values, in any order.
    @inlinable
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.members.count == rhs.members.count else { return false }
        for (position, member) in lhs.members.enumerated() {
            // Fast path: same key at the same position.
            if position < rhs.members.count, JSONKey.equal(rhs.members[position].key, member.key) {
                guard rhs.members[position].value == member.value else { return false }
                continue
            }
            guard let other = rhs[member.key], other == member.value else { return false }
        }
        return true
    }

    /// Hashes the members without regard to their order.
    @inlinable
    public func hash(into hasher: inout Hasher) {
        var combined = 0
        for member in members {
            var memberHasher = Hasher()
            JSONKey(member.key).hash(into: &memberHasher)
            member.value.hash(into: &memberHasher)
            combined = combined &+ memberHasher.finalize()
        }
        hasher.combine(members.count)
        hasher.combine(combined)
    }
}

// MARK: - Literals

extension JSONObject: ExpressibleByDictionaryLiteral {
    /// Creates an object with the members in the order written.
    @inlinable
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements)
    }
}

// MARK: - Keys compared by scalars

/// A string key hashed and compared by its UTF-8 bytes rather than by canonical equivalence.
@usableFromInline
struct JSONKey: Hashable, Sendable {
    @usableFromInline
    let string: String

    @inlinable
    init(_ string: String) {
        self.string = string
    }

    /// Whether two keys have the same UTF-8 bytes.
    @inlinable
    static func equal(_ lhs: String, _ rhs: String) -> Bool {
        let left = lhs.utf8
        let right = rhs.utf8
        guard left.count == right.count else { return false }
        if let result = left.withContiguousStorageIfAvailable({ leftBytes in
            right.withContiguousStorageIfAvailable { rightBytes in
                leftBytes.elementsEqual(rightBytes)
            }
        }), let result {
            return result
        }
        return left.elementsEqual(right)
    }

    @inlinable
    static func == (lhs: JSONKey, rhs: JSONKey) -> Bool {
        equal(lhs.string, rhs.string)
    }

    @inlinable
    func hash(into hasher: inout Hasher) {
        let utf8 = string.utf8
        if utf8.withContiguousStorageIfAvailable({ hasher.combine(bytes: UnsafeRawBufferPointer($0)) }) == nil {
            for byte in utf8 {
                hasher.combine(byte)
            }
        }
        hasher.combine(utf8.count)
    }
}
