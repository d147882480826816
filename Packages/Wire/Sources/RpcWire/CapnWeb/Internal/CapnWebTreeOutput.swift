/// Builds the encoder's output as a ``JSONValue``.
struct CapnWebTreeOutput: CapnWebOutput {
    /// An array or object under construction.
    private enum Frame {
        case array([JSONValue])
        case object(JSONObject, pendingKey: String)
    }

    private var frames: [Frame] = []

    /// The finished value, once the outermost container is closed or a scalar written.
    private(set) var result: JSONValue = .null

    init() {}

    private mutating func add(_ value: JSONValue) {
        guard let top = frames.popLast() else {
            result = value
            return
        }
        switch top {
        case .array(var elements):
            elements.append(value)
            frames.append(.array(elements))
        case .object(var object, let key):
            object[key] = value
            frames.append(.object(object, pendingKey: ""))
        }
    }

    mutating func beginArray() { frames.append(.array([])) }

    mutating func endArray() {
        guard case .array(let elements)? = frames.popLast() else { return }
        add(.array(elements))
    }

    mutating func beginObject() { frames.append(.object(JSONObject(), pendingKey: "")) }

    mutating func endObject() {
        guard case .object(let object, _)? = frames.popLast() else { return }
        add(.object(object))
    }

    mutating func separator() {}

    mutating func key(_ key: String) {
        guard case .object(let object, _)? = frames.popLast() else { return }
        frames.append(.object(object, pendingKey: key))
    }

    mutating func tag(_ tag: StaticString) { add(.string(tag.description)) }

    mutating func null() { add(.null) }

    mutating func bool(_ value: Bool) { add(.bool(value)) }

    mutating func integer(_ value: Int64) { add(.integer(value)) }

    mutating func double(_ value: Double) throws(WireError) {
        guard value.isFinite else {
            throw WireError(
                code: .nonFiniteNumber, message: "cannot write the non-finite number \(value) as JSON")
        }
        add(.double(value))
    }

    mutating func string(_ value: String) { add(.string(value)) }

    mutating func base64(_ bytes: [UInt8]) { add(.string(Base64.encode(bytes))) }

    mutating func json(_ value: JSONValue) throws(WireError) { add(value) }
}
