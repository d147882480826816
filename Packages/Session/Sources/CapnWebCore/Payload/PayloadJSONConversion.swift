internal import RpcWire

/// Converts between ``RpcPayload`` and the ``JSONValue`` trees that the Codable coders of
/// RpcWire read and write, with a ``PayloadCodingTable`` for what JSON cannot hold.
///
/// Object members keep their order both ways.
enum PayloadJSONConversion {
    /// A conversion failure: what went wrong and where, as path components from the root
    /// (`name`, `[0]`), gathered while unwinding so that the successful path costs nothing.
    struct Failure: Error {
        var path: [String]
        let message: String

        init(_ message: String) {
            self.path = []
            self.message = message
        }

        /// The path as text, such as `items[0].name`, or `<root>`.
        var pathText: String {
            guard !path.isEmpty else { return "<root>" }
            var text = ""
            for component in path {
                if !component.hasPrefix("["), !text.isEmpty { text += "." }
                text += component
            }
            return text
        }
    }

    /// The strings a non-finite double encodes as, so that they can be told from ordinary
    /// strings when the JSON tree goes back to a payload.
    enum NonFinite {
        static let positiveInfinity = "\u{0}capnweb:Infinity"
        static let negativeInfinity = "\u{0}capnweb:-Infinity"
        static let nan = "\u{0}capnweb:NaN"

        /// The double a sentinel string stands for, `nil` for any other string.
        static func value(of string: String) -> Double? {
            guard string.utf8.first == 0 else { return nil }
            switch string {
            case positiveInfinity: return .infinity
            case negativeInfinity: return -.infinity
            case nan: return .nan
            default: return nil
            }
        }
    }

    // MARK: - Payload to JSON (decoding)

    /// The JSON form of an incoming payload, for decoding into a Swift type.
    ///
    /// References, bytes, requests, responses and blobs go into `table` and appear as
    /// markers (`Data` decodes from a bytes marker as well as from base64 text); `undefined`
    /// becomes `null`; a date becomes its milliseconds (`null` for the invalid date); a bigint becomes an integer when it fits in `Int64`,
    /// otherwise its text; non-finite doubles become `"Infinity"`, `"-Infinity"` and `"NaN"`;
    /// an error becomes `{name, message, stack?, ...properties}`; a URL its text; headers
    /// `[[name, value], ...]`.
    ///
    /// - Throws: ``Failure`` when an object has the marker's key, which could otherwise pass
    ///   for a reference.
    static func json(from payload: RpcPayload, table: PayloadCodingTable) throws(Failure) -> JSONValue {
        switch payload {
        case .null, .undefined:
            return .null
        case .bool(let flag):
            return .bool(flag)
        case .integer(let integer):
            return .integer(integer)
        case .double(let number):
            if number.isFinite { return .double(number) }
            if number.isNaN { return .string("NaN") }
            return .string(number > 0 ? "Infinity" : "-Infinity")
        case .string(let string):
            return .string(string)
        case .array(let elements):
            var converted: [JSONValue] = []
            converted.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() {
                do {
                    converted.append(try json(from: element, table: table))
                } catch {
                    throw error.prefixed("[\(index)]")
                }
            }
            return .array(converted)
        case .object(let members):
            var object = JSONObject(minimumCapacity: members.count)
            for member in members {
                if member.key == PayloadCodingTable.markerKey {
                    throw Failure("object member \"\\u{0}capnweb\" is reserved").prefixed(member.key)
                }
                do {
                    object[member.key] = try json(from: member.value, table: table)
                } catch {
                    throw error.prefixed(member.key)
                }
            }
            return .object(object)
        case .bigint(let text):
            if let integer = Int64(text) { return .integer(integer) }
            return .string(text)
        case .date(let milliseconds):
            return CapnWebDate.timeClip(milliseconds).map(JSONValue.double) ?? .null
        case .error(let value):
            return try json(from: value, table: table)
        case .url(let text):
            return .string(text)
        case .headers(let headers):
            return .array(headers.map { .array([.string($0.name), .string($0.value)]) })
        case .bytes, .request, .response, .blob, .stub, .readable, .writable:
            return .object([PayloadCodingTable.markerKey: .integer(Int64(table.append(payload)))])
        }
    }

    /// An error value as `{name, message, stack?, ...properties}`; a property never replaces
    /// one of the first three.
    private static func json(from error: RpcErrorValue, table: PayloadCodingTable) throws(Failure) -> JSONValue {
        var object = JSONObject(minimumCapacity: 3 + (error.properties?.count ?? 0))
        object["name"] = .string(error.name)
        object["message"] = .string(error.message)
        if let stack = error.stack { object["stack"] = .string(stack) }
        for member in error.properties ?? [] where object[member.key] == nil {
            if member.key == PayloadCodingTable.markerKey {
                throw Failure("object member \"\\u{0}capnweb\" is reserved").prefixed(member.key)
            }
            do {
                object[member.key] = try json(from: member.value, table: table)
            } catch {
                throw error.prefixed(member.key)
            }
        }
        return .object(object)
    }

    // MARK: - JSON to payload (encoding)

    /// The payload an encoded JSON tree stands for: markers become their `entries`, the
    /// non-finite sentinels become doubles, everything else maps one to one.
    ///
    /// - Throws: ``Failure`` when an object holds the marker's key but is not a marker of
    ///   this encoding.
    static func payload(from json: JSONValue, entries: [RpcPayload]) throws(Failure) -> RpcPayload {
        switch json {
        case .null:
            return .null
        case .bool(let flag):
            return .bool(flag)
        case .integer(let integer):
            return .integer(integer)
        case .double(let number):
            return .double(number)
        case .string(let string):
            if let number = NonFinite.value(of: string) { return .double(number) }
            return .string(string)
        case .array(let elements):
            var converted: [RpcPayload] = []
            converted.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() {
                do {
                    converted.append(try payload(from: element, entries: entries))
                } catch {
                    throw error.prefixed("[\(index)]")
                }
            }
            return .array(converted)
        case .object(let object):
            if !entries.isEmpty, let index = PayloadCodingTable.markerIndex(in: json), entries.indices.contains(index) {
                return entries[index]
            }
            var members: [RpcPayload.Member] = []
            members.reserveCapacity(object.count)
            for (key, value) in object {
                if key == PayloadCodingTable.markerKey {
                    throw Failure("object member \"\\u{0}capnweb\" is reserved").prefixed(key)
                }
                do {
                    members.append(RpcPayload.Member(key, try payload(from: value, entries: entries)))
                } catch {
                    throw error.prefixed(key)
                }
            }
            return .object(members)
        }
    }
}

extension PayloadJSONConversion.Failure {
    /// The failure with `component` in front of its path.
    func prefixed(_ component: String) -> Self {
        var failure = self
        failure.path.insert(component, at: 0)
        return failure
    }
}
