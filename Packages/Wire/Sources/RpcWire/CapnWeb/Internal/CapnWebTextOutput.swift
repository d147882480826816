/// Writes the encoder's output as compact JSON text.
struct CapnWebTextOutput: CapnWebOutput {
    var writer: JSONWriter

    init(writer: JSONWriter) {
        self.writer = writer
    }

    @inline(__always)
    mutating func beginArray() { writer.writeRaw(UInt8(ascii: "[")) }

    @inline(__always)
    mutating func endArray() { writer.writeRaw(UInt8(ascii: "]")) }

    @inline(__always)
    mutating func beginObject() { writer.writeRaw(UInt8(ascii: "{")) }

    @inline(__always)
    mutating func endObject() { writer.writeRaw(UInt8(ascii: "}")) }

    @inline(__always)
    mutating func separator() { writer.writeRaw(UInt8(ascii: ",")) }

    @inline(__always)
    mutating func key(_ key: String) {
        writer.writeString(key)
        writer.writeRaw(UInt8(ascii: ":"))
    }

    @inline(__always)
    mutating func tag(_ tag: StaticString) {
        writer.writeRaw(UInt8(ascii: "\""))
        writer.writeRaw(tag)
        writer.writeRaw(UInt8(ascii: "\""))
    }

    @inline(__always)
    mutating func null() { writer.writeNull() }

    @inline(__always)
    mutating func bool(_ value: Bool) { writer.writeBool(value) }

    @inline(__always)
    mutating func integer(_ value: Int64) { writer.writeInteger(value) }

    @inline(__always)
    mutating func double(_ value: Double) throws(WireError) { try writer.writeDouble(value) }

    @inline(__always)
    mutating func string(_ value: String) { writer.writeString(value) }

    mutating func base64(_ bytes: [UInt8]) {
        // The base64 alphabet needs no escaping inside a JSON string.
        writer.writeRaw(UInt8(ascii: "\""))
        Base64.encode(bytes, into: &writer.bytes)
        writer.writeRaw(UInt8(ascii: "\""))
    }

    mutating func json(_ value: JSONValue) throws(WireError) { try writer.write(value) }
}
