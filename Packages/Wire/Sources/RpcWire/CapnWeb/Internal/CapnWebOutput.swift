/// Where the Cap'n Web encoder sends its JSON: straight to text, or into a ``JSONValue`` tree.
///
/// The encoder makes the calls in document order and writes the separators itself with
/// ``separator()``; a conformer that builds a tree ignores them.
protocol CapnWebOutput {
    /// Opens an array.
    mutating func beginArray()
    /// Closes the innermost array.
    mutating func endArray()
    /// Opens an object.
    mutating func beginObject()
    /// Closes the innermost object.
    mutating func endObject()
    /// Separates two elements of an array or two members of an object.
    mutating func separator()
    /// Starts an object member named `key`; its value follows.
    mutating func key(_ key: String)
    /// A message or expression tag: plain ASCII that needs no escaping.
    mutating func tag(_ tag: StaticString)
    /// `null`.
    mutating func null()
    /// `true` or `false`.
    mutating func bool(_ value: Bool)
    /// An integer.
    mutating func integer(_ value: Int64)
    /// A finite number.
    mutating func double(_ value: Double) throws(WireError)
    /// A string.
    mutating func string(_ value: String)
    /// `bytes` as an unpadded base64 string.
    mutating func base64(_ bytes: [UInt8])
    /// Plain JSON, whose depth the caller has already checked.
    mutating func json(_ value: JSONValue) throws(WireError)
}
