internal import RpcWire

extension RpcPayload: CustomStringConvertible {
    /// The value as a compact JavaScript literal, for display.
    ///
    /// JSON values are written as compact JSON (no spaces, object members in order, strings
    /// escaped like `JSON.stringify`, numbers like `Number.prototype.toString`). Everything JSON
    /// cannot hold is written as the JavaScript expression that makes it:
    ///
    /// | Value | Text |
    /// |---|---|
    /// | `undefined`, non-finite numbers | `undefined`, `NaN`, `Infinity`, `-Infinity` |
    /// | negative zero | `-0` |
    /// | bigint | `12n` |
    /// | date | `new Date(5)`; the invalid date (or a time JavaScript cannot hold: not finite or beyond ±8.64e15) `new Date(NaN)` |
    /// | bytes | `new Uint8Array([1,2,3])`, `new Int16Array([-1])`, `new Uint8Array([1]).buffer`, `new DataView(new Uint8Array([1]).buffer)` |
    /// | error | `new TypeError("msg")`; another name or extra properties: `Object.assign(new Error("msg"),{"name":"NotFound","code":7})` |
    /// | URL, headers | `new URL("https://a.b/")`, `new Headers([["a","1"]])` |
    /// | request, response | `new Request("https://a.b/",{"method":"POST","body":"hi"})`, `new Response("hi",{"status":200})` |
    /// | references | `[stub]`, `[ReadableStream]`, `[WritableStream]`, `[Blob text/plain]` |
    ///
    /// Typed arrays with multi-byte elements show their little-endian elements; bytes whose
    /// length is not a multiple of the element size show as the raw `Uint8Array` followed by
    /// the type in a comment. Error stacks are not shown.
    public var description: String {
        PayloadText.describe(self)
    }
}

/// Writes ``RpcPayload`` values as compact JavaScript literals; see ``RpcPayload/description``.
enum PayloadText {
    /// The error constructors JavaScript has built in, written as `new Name("message")`.
    static let builtInErrorNames: Set<String> = [
        "Error", "EvalError", "RangeError", "ReferenceError", "SyntaxError", "TypeError", "URIError",
    ]

    /// The literal text of `payload`.
    static func describe(_ payload: RpcPayload) -> String {
        var text = ""
        append(payload, to: &text)
        return text
    }

    /// Appends the literal text of `payload`.
    static func append(_ payload: RpcPayload, to text: inout String) {
        switch payload {
        case .null:
            text += "null"
        case .bool(let flag):
            text += flag ? "true" : "false"
        case .integer(let integer):
            text += String(integer)
        case .double(let number):
            text += numberText(number)
        case .string(let string):
            text += quoted(string)
        case .array(let elements):
            appendList(elements, to: &text)
        case .object(let members):
            appendObject(members.map { ($0.key, $0.value) }, to: &text)
        case .undefined:
            text += "undefined"
        case .bigint(let digits):
            text += digits + "n"
        case .date(let milliseconds):
            // The time as given (`new Date(t)` cuts a fraction off itself), or NaN when no
            // JavaScript date can have it.
            let time = milliseconds.flatMap { CapnWebDate.timeClip($0) == nil ? nil : $0 } ?? .nan
            text += "new Date(" + numberText(time) + ")"
        case .bytes(let bytes, let type):
            appendBytes(bytes, type: type ?? .uint8Array, to: &text)
        case .error(let error):
            appendError(error, to: &text)
        case .url(let url):
            text += "new URL(" + quoted(url) + ")"
        case .headers(let headers):
            text += "new Headers(" + headersText(headers) + ")"
        case .request(let url, let requestInit, let body):
            text += "new Request(" + quoted(url)
            appendFetchInit(requestInit, body: body, to: &text)
            text += ")"
        case .response(let body, let responseInit):
            text += "new Response("
            append(body, to: &text)
            appendFetchInit(responseInit, body: nil, to: &text)
            text += ")"
        case .blob(let mimeType, _):
            text += mimeType.isEmpty ? "[Blob]" : "[Blob \(mimeType)]"
        case .stub:
            text += "[stub]"
        case .readable:
            text += "[ReadableStream]"
        case .writable:
            text += "[WritableStream]"
        }
    }

    // MARK: - Scalars

    /// A number as `Number.prototype.toString` writes it, except that negative zero is `-0`.
    static func numberText(_ number: Double) -> String {
        if number.isNaN { return "NaN" }
        if number.isInfinite { return number < 0 ? "-Infinity" : "Infinity" }
        var writer = JSONWriter()
        do {
            try writer.writeDouble(number)
        } catch {
            return String(number)
        }
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// `string` as a JSON string, escaped as `JSON.stringify` escapes it.
    static func quoted(_ string: String) -> String {
        var writer = JSONWriter()
        writer.writeString(string)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    // MARK: - Containers

    /// Appends `[a,b,...]`.
    static func appendList(_ elements: [RpcPayload], to text: inout String) {
        text += "["
        for (position, element) in elements.enumerated() {
            if position > 0 { text += "," }
            append(element, to: &text)
        }
        text += "]"
    }

    /// Appends `{"key":value,...}` with the members in order.
    static func appendObject(_ members: [(key: String, value: RpcPayload)], to text: inout String) {
        text += "{"
        for (position, member) in members.enumerated() {
            if position > 0 { text += "," }
            text += quoted(member.key)
            text += ":"
            append(member.value, to: &text)
        }
        text += "}"
    }

    /// `[["name","value"],...]`.
    static func headersText(_ headers: [CapnWebHeader]) -> String {
        "[" + headers.map { "[" + quoted($0.name) + "," + quoted($0.value) + "]" }.joined(separator: ",") + "]"
    }

    // MARK: - Bytes

    /// Appends the expression that makes `bytes` viewed as `type`.
    static func appendBytes(_ bytes: [UInt8], type: CapnWebBytesType, to text: inout String) {
        let rawArray = "new Uint8Array([" + bytes.map { String($0) }.joined(separator: ",") + "])"
        switch type {
        case .arrayBuffer:
            text += rawArray + ".buffer"
        case .dataView:
            text += "new DataView(" + rawArray + ".buffer)"
        case .uint8Array:
            text += rawArray
        default:
            guard bytes.count % type.elementSize == 0 else {
                text += rawArray + " /* \(type.rawValue) */"
                return
            }
            let elements = stride(from: 0, to: bytes.count, by: type.elementSize).map { start in
                elementText(bytes[start..<start + type.elementSize], type: type)
            }
            text += "new \(type.rawValue)([" + elements.joined(separator: ",") + "])"
        }
    }

    /// One element of a typed array, from its little-endian bytes.
    static func elementText(_ bytes: ArraySlice<UInt8>, type: CapnWebBytesType) -> String {
        let bits = bytes.reversed().reduce(UInt64(0)) { ($0 << 8) | UInt64($1) }
        switch type {
        case .int8Array:
            return String(Int8(truncatingIfNeeded: bits))
        case .int16Array:
            return String(Int16(truncatingIfNeeded: bits))
        case .int32Array:
            return String(Int32(truncatingIfNeeded: bits))
        case .bigInt64Array:
            return String(Int64(bitPattern: bits)) + "n"
        case .bigUint64Array:
            return String(bits) + "n"
        case .float32Array:
            return numberText(Double(Float(bitPattern: UInt32(truncatingIfNeeded: bits))))
        case .float64Array:
            return numberText(Double(bitPattern: bits))
        default:
            return String(bits)
        }
    }

    // MARK: - Errors

    /// Appends `new TypeError("msg")`, or `Object.assign(new Error("msg"),{...})` when the name
    /// is not a built-in constructor or the error has extra properties.
    static func appendError(_ error: RpcErrorValue, to text: inout String) {
        let isBuiltIn = builtInErrorNames.contains(error.name)
        let constructor = "new " + (isBuiltIn ? error.name : "Error") + "(" + quoted(error.message) + ")"
        var extra: [(key: String, value: RpcPayload)] = []
        if !isBuiltIn {
            extra.append(("name", .string(error.name)))
        }
        for property in error.properties ?? [] {
            extra.append((property.key, property.value))
        }
        guard !extra.isEmpty else {
            text += constructor
            return
        }
        text += "Object.assign(" + constructor + ","
        appendObject(extra, to: &text)
        text += ")"
    }

    // MARK: - Fetch

    /// Appends `,{INIT}` for a request or response: the plain members in order, then `body`
    /// when given. Nothing is appended when there is nothing to show. A `body` member inside
    /// `fetchInit` itself is not shown; the payload carries the body separately.
    static func appendFetchInit(_ fetchInit: CapnWebFetchInit, body: RpcPayload?, to text: inout String) {
        var members: [String] = []
        for member in fetchInit.members {
            guard case .field(let key, let value) = member else { continue }
            members.append(quoted(key) + ":" + jsonText(value))
        }
        if let body {
            members.append(quoted("body") + ":" + describe(body))
        }
        guard !members.isEmpty else { return }
        text += ",{" + members.joined(separator: ",") + "}"
    }

    /// Plain JSON as compact text, with non-finite numbers written as JavaScript literals.
    static func jsonText(_ value: JSONValue) -> String {
        switch value {
        case .null:
            return "null"
        case .bool(let flag):
            return flag ? "true" : "false"
        case .integer(let integer):
            return String(integer)
        case .double(let number):
            return numberText(number)
        case .string(let string):
            return quoted(string)
        case .array(let elements):
            return "[" + elements.map(jsonText).joined(separator: ",") + "]"
        case .object(let object):
            return "{" + object.map { quoted($0.key) + ":" + jsonText($0.value) }.joined(separator: ",") + "}"
        }
    }
}
