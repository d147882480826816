/// Turns a parsed JSON value into a Cap'n Web message or expression, checking every form.
///
/// The decoder keeps the JSON Pointer of the value it is looking at, so that an error names the
/// offending part of the message (`/1/3/0`). It counts nesting the way the JSON parser does: the
/// outermost array or object is at depth 1, and no array or object may sit deeper than
/// ``CapnWebCodec/Configuration/maxDepth``.
struct CapnWebDecoder {
    /// One step of the pointer to the current value.
    private enum Step {
        case index(Int)
        case key(String)
    }

    private let maxDepth: Int
    private let maxBigIntDigits: Int
    /// Whether ``steps`` is kept. Without it nothing is allocated for the pointer, and errors
    /// carry no path: ``CapnWebCodec`` decodes that way first and decodes again with the path
    /// only when the message is bad.
    private let tracksPath: Bool
    private var steps: [Step] = []
    /// How many steps deep the current value is.
    private var depth = 0

    init(configuration: CapnWebCodec.Configuration, tracksPath: Bool = true) {
        maxDepth = configuration.maxDepth
        maxBigIntDigits = configuration.maxBigIntDigits
        self.tracksPath = tracksPath
        if tracksPath { steps.reserveCapacity(16) }
    }

    /// Steps into a child of the current value.
    private mutating func enter(_ step: Step) {
        depth += 1
        if tracksPath { steps.append(step) }
    }

    /// Steps back out to the parent.
    private mutating func leave() {
        depth -= 1
        if tracksPath { steps.removeLast() }
    }

    // MARK: - Messages

    mutating func message(_ value: JSONValue) throws(WireError) -> CapnWebMessage {
        guard case .array(let elements) = value else {
            throw failure(.invalidMessage, "message must be a JSON array, got \(value.kindName)")
        }
        try checkDepth()
        guard let first = elements.first else {
            throw failure(.invalidMessage, "message must not be an empty array")
        }
        guard case .string(let tag) = first else {
            enter(.index(0))
            throw failure(.invalidMessage, "message tag must be a string, got \(first.kindName)")
        }
        switch tag {
        case "push":
            try expectMessageArity(elements, tag, 2)
            return .push(try element(elements, 1))
        case "pull":
            try expectMessageArity(elements, tag, 2)
            return .pull(importID: try messageID(elements, 1, tag, "import ID"))
        case "resolve":
            try expectMessageArity(elements, tag, 3)
            let exportID = try messageID(elements, 1, tag, "export ID")
            return .resolve(exportID: exportID, value: try element(elements, 2))
        case "reject":
            try expectMessageArity(elements, tag, 3)
            let exportID = try messageID(elements, 1, tag, "export ID")
            return .reject(exportID: exportID, value: try element(elements, 2))
        case "release":
            try expectMessageArity(elements, tag, 3)
            let importID = try messageID(elements, 1, tag, "import ID")
            let refcount = try messageID(elements, 2, tag, "refcount")
            return .release(importID: importID, refcount: refcount)
        case "abort":
            try expectMessageArity(elements, tag, 2)
            return .abort(try element(elements, 1))
        case "stream":
            try expectMessageArity(elements, tag, 2)
            return .stream(try element(elements, 1))
        case "pipe":
            try expectMessageArity(elements, tag, 1)
            return .pipe
        default:
            throw failure(.unknownTag, "unknown message tag \(CapnWebText.quoted(tag))")
        }
    }

    private func expectMessageArity(
        _ elements: [JSONValue], _ tag: String, _ count: Int
    ) throws(WireError) {
        guard elements.count == count else {
            throw failure(.wrongArity, Self.arityText(tag, count, count, elements.count))
        }
    }

    private mutating func messageID(
        _ elements: [JSONValue], _ index: Int, _ tag: String, _ what: String
    ) throws(WireError) -> Int64 {
        guard let id = elements[index].int64Value else {
            enter(.index(index))
            throw failure(
                .invalidMessage,
                "\(CapnWebText.quoted(tag)) \(what) must be an integer, got \(Self.kind(elements[index]))")
        }
        return id
    }

    // MARK: - Expressions

    mutating func expression(_ value: JSONValue) throws(WireError) -> CapnWebExpression {
        switch value {
        case .null:
            return .null
        case .bool(let flag):
            return .bool(flag)
        case .integer(let integer):
            return .integer(integer)
        case .double(let double):
            if double.isFinite { return .double(double) }
            if double.isNaN { return .nan }
            return double < 0 ? .negativeInfinity : .infinity
        case .string(let string):
            return .string(string)
        case .object(let object):
            try checkDepth()
            return .object(try members(object))
        case .array(let elements):
            try checkDepth()
            return try arrayExpression(elements)
        }
    }

    /// The members of an object whose values are expressions; the object's depth is checked.
    private mutating func members(_ object: JSONObject) throws(WireError) -> [CapnWebMember] {
        var members: [CapnWebMember] = []
        members.reserveCapacity(object.count)
        for (key, value) in object {
            enter(.key(key))
            members.append(CapnWebMember(key, try expression(value)))
            leave()
        }
        return members
    }

    /// The expression at `elements[index]`, with the pointer moved to it.
    private mutating func element(
        _ elements: [JSONValue], _ index: Int
    ) throws(WireError) -> CapnWebExpression {
        enter(.index(index))
        let result = try expression(elements[index])
        leave()
        return result
    }

    /// A list of expressions that is written as a plain JSON array; its depth is checked.
    private mutating func expressionList(
        _ elements: [JSONValue]
    ) throws(WireError) -> [CapnWebExpression] {
        var result: [CapnWebExpression] = []
        result.reserveCapacity(elements.count)
        for index in elements.indices {
            result.append(try element(elements, index))
        }
        return result
    }

    private mutating func arrayExpression(
        _ elements: [JSONValue]
    ) throws(WireError) -> CapnWebExpression {
        if elements.count == 1, case .array(let literal) = elements[0] {
            enter(.index(0))
            try checkDepth()
            let result = try expressionList(literal)
            leave()
            return .array(result)
        }
        guard let first = elements.first, case .string(let tag) = first else {
            throw failure(.unescapedArray, "literal array must be escaped as [[...]]")
        }
        switch tag {
        case "undefined":
            try expectArity(elements, tag, 1, 1)
            return .undefined
        case "inf":
            try expectArity(elements, tag, 1, 1)
            return .infinity
        case "-inf":
            try expectArity(elements, tag, 1, 1)
            return .negativeInfinity
        case "nan":
            try expectArity(elements, tag, 1, 1)
            return .nan
        case "bigint":
            try expectArity(elements, tag, 2, 2)
            return .bigint(try bigintText(elements))
        case "date":
            try expectArity(elements, tag, 2, 2)
            switch elements[1] {
            case .null:
                return .date(nil)
            case .integer(let integer):
                return .date(CapnWebDate.timeClip(Double(integer)))
            case .double(let double):
                return .date(CapnWebDate.timeClip(double))
            default:
                enter(.index(1))
                throw failure(
                    .invalidExpression,
                    "\"date\" takes a number or null, got \(Self.kind(elements[1]))")
            }
        case "bytes":
            try expectArity(elements, tag, 2, 3)
            return try bytesExpression(elements)
        case "error":
            try expectArity(elements, tag, 3, 5)
            return try errorExpression(elements)
        case "url":
            try expectArity(elements, tag, 2, 2)
            return .url(try stringOperand(elements, 1, "\"url\" href"))
        case "headers":
            try expectArity(elements, tag, 2, 2)
            return .headers(try headerList(elements))
        case "request":
            try expectArity(elements, tag, 3, 3)
            let url = try stringOperand(elements, 1, "\"request\" URL")
            return .request(url: url, init: try fetchInit(elements, 2, tag))
        case "response":
            try expectArity(elements, tag, 3, 3)
            let body = try element(elements, 1)
            return .response(body: body, init: try fetchInit(elements, 2, tag))
        case "blob":
            try expectArity(elements, tag, 3, 3)
            return try blobExpression(elements)
        case "export":
            try expectArity(elements, tag, 2, 2)
            return .export(try integerID(elements, 1, tag))
        case "promise":
            try expectArity(elements, tag, 2, 2)
            return .promise(try integerID(elements, 1, tag))
        case "readable":
            try expectArity(elements, tag, 2, 2)
            return .readable(try integerID(elements, 1, tag))
        case "writable":
            try expectArity(elements, tag, 2, 2)
            return .writable(try integerID(elements, 1, tag))
        case "import", "pipeline":
            try expectArity(elements, tag, 2, 4)
            let id = try integerID(elements, 1, tag)
            let path = elements.count > 2 ? try pathKeys(elements, 2, tag) : nil
            let arguments = elements.count > 3 ? try expressionArray(elements, 3, tag) : nil
            return tag == "import"
                ? .import(id, path: path, arguments: arguments)
                : .pipeline(id, path: path, arguments: arguments)
        case "remap":
            try expectArity(elements, tag, 5, 5)
            let id = try integerID(elements, 1, tag)
            let path = try pathKeys(elements, 2, tag)
            let captures = try remapCaptures(elements)
            let instructions = try expressionArray(elements, 4, tag, what: "instructions")
            return .remap(id, path: path, captures: captures, instructions: instructions)
        default:
            throw failure(.unknownTag, "unknown expression tag \(CapnWebText.quoted(tag))")
        }
    }

    // MARK: - Operands

    private func expectArity(
        _ elements: [JSONValue], _ tag: String, _ minimum: Int, _ maximum: Int
    ) throws(WireError) {
        guard elements.count >= minimum, elements.count <= maximum else {
            throw failure(.wrongArity, Self.arityText(tag, minimum, maximum, elements.count))
        }
    }

    private mutating func integerID(
        _ elements: [JSONValue], _ index: Int, _ tag: String
    ) throws(WireError) -> Int64 {
        guard let id = elements[index].int64Value else {
            enter(.index(index))
            throw failure(
                .invalidExpression,
                "\(CapnWebText.quoted(tag)) ID must be an integer, got \(Self.kind(elements[index]))")
        }
        return id
    }

    private mutating func stringOperand(
        _ elements: [JSONValue], _ index: Int, _ what: String
    ) throws(WireError) -> String {
        guard case .string(let string) = elements[index] else {
            enter(.index(index))
            throw failure(
                .invalidExpression, "\(what) must be a string, got \(Self.kind(elements[index]))")
        }
        return string
    }

    private mutating func bigintText(_ elements: [JSONValue]) throws(WireError) -> String {
        let text = try stringOperand(elements, 1, "\"bigint\" value")
        switch CapnWebBigInt.check(text, maxDigits: maxBigIntDigits) {
        case .valid:
            return text
        case .malformed:
            enter(.index(1))
            throw failure(
                .invalidBigInt, "bigint text \(CapnWebText.quoted(text)) is not a decimal integer")
        case .tooLong(let digits):
            enter(.index(1))
            throw failure(
                .invalidBigInt,
                "bigint has \(digits) digits, more than the limit of \(maxBigIntDigits)")
        }
    }

    private mutating func bytesExpression(_ elements: [JSONValue]) throws(WireError) -> CapnWebExpression {
        let text = try stringOperand(elements, 1, "\"bytes\" data")
        var type: CapnWebBytesType?
        if elements.count == 3 {
            let marker = try stringOperand(elements, 2, "\"bytes\" type")
            guard let known = CapnWebBytesType(rawValue: marker) else {
                enter(.index(2))
                throw failure(.unknownBytesType, "unknown bytes type \(CapnWebText.quoted(marker))")
            }
            type = known
        }
        guard let data = Base64.decode(text) else {
            enter(.index(1))
            throw failure(.invalidBase64, "invalid base64 in bytes")
        }
        if let type, data.count % type.elementSize != 0 {
            throw failure(
                .misalignedBytes,
                "\(type.rawValue) byte length \(data.count) is not a multiple of \(type.elementSize)")
        }
        return .bytes(data, type: type)
    }

    private mutating func errorExpression(_ elements: [JSONValue]) throws(WireError) -> CapnWebExpression {
        let name = try stringOperand(elements, 1, "\"error\" name")
        let message = try stringOperand(elements, 2, "\"error\" message")
        var stack: String?
        if elements.count > 3 {
            switch elements[3] {
            case .string(let text):
                stack = text
            case .null:
                stack = nil
            default:
                enter(.index(3))
                throw failure(
                    .invalidExpression,
                    "\"error\" stack must be a string or null, got \(Self.kind(elements[3]))")
            }
        }
        var properties: [CapnWebMember]?
        if elements.count > 4 {
            enter(.index(4))
            guard case .object(let object) = elements[4] else {
                throw failure(
                    .invalidExpression,
                    "\"error\" properties must be an object, got \(Self.kind(elements[4]))")
            }
            try checkDepth()
            properties = try members(object)
            leave()
        }
        return .error(name: name, message: message, stack: stack, properties: properties)
    }

    private mutating func headerList(_ elements: [JSONValue]) throws(WireError) -> [CapnWebHeader] {
        enter(.index(1))
        guard case .array(let pairs) = elements[1] else {
            throw failure(
                .invalidExpression,
                "\"headers\" takes an array of [name, value] pairs, got \(Self.kind(elements[1]))")
        }
        try checkDepth()
        var headers: [CapnWebHeader] = []
        headers.reserveCapacity(pairs.count)
        for (index, pair) in pairs.enumerated() {
            enter(.index(index))
            guard case .array(let parts) = pair, parts.count == 2,
                case .string(let name) = parts[0], case .string(let value) = parts[1]
            else {
                throw failure(.invalidExpression, "a header must be a [name, value] pair of strings")
            }
            try checkDepth()
            headers.append(CapnWebHeader(name, value))
            leave()
        }
        leave()
        return headers
    }

    private mutating func fetchInit(
        _ elements: [JSONValue], _ index: Int, _ tag: String
    ) throws(WireError) -> CapnWebFetchInit {
        enter(.index(index))
        guard case .object(let object) = elements[index] else {
            throw failure(
                .invalidExpression,
                "\(CapnWebText.quoted(tag)) init must be an object, got \(Self.kind(elements[index]))")
        }
        try checkDepth()
        var members: [CapnWebFetchInit.Member] = []
        members.reserveCapacity(object.count)
        for (key, value) in object {
            enter(.key(key))
            if key == "body" {
                members.append(.body(try expression(value)))
            } else {
                if key == "headers" {
                    switch value {
                    case .array, .null:
                        break
                    default:
                        throw failure(
                            .invalidExpression,
                            "\(CapnWebText.quoted(tag)) headers must be an array of pairs, got \(Self.kind(value))")
                    }
                }
                try checkPlainDepth(value)
                members.append(.field(key, value))
            }
            leave()
        }
        leave()
        return CapnWebFetchInit(members)
    }

    private mutating func blobExpression(_ elements: [JSONValue]) throws(WireError) -> CapnWebExpression {
        let mimeType = try stringOperand(elements, 1, "\"blob\" type")
        enter(.index(2))
        guard case .array(let stream) = elements[2], stream.count == 2,
            case .string("readable") = stream[0]
        else {
            throw failure(.invalidExpression, "\"blob\" content must be [\"readable\", ID]")
        }
        try checkDepth()
        let pipe = try integerID(stream, 1, "readable")
        leave()
        return .blob(mimeType: mimeType, readable: pipe)
    }

    private mutating func pathKeys(
        _ elements: [JSONValue], _ index: Int, _ tag: String
    ) throws(WireError) -> [CapnWebPathKey] {
        enter(.index(index))
        guard case .array(let keys) = elements[index] else {
            throw failure(
                .invalidExpression,
                "\(CapnWebText.quoted(tag)) path must be an array, got \(Self.kind(elements[index]))")
        }
        try checkDepth()
        var path: [CapnWebPathKey] = []
        path.reserveCapacity(keys.count)
        for (position, key) in keys.enumerated() {
            switch key {
            case .string(let name):
                path.append(.property(name))
            default:
                guard let number = key.int64Value else {
                    enter(.index(position))
                    throw failure(
                        .invalidExpression,
                        "a path element must be a string or an integer, got \(Self.kind(key))")
                }
                path.append(.index(number))
            }
        }
        leave()
        return path
    }

    private mutating func expressionArray(
        _ elements: [JSONValue], _ index: Int, _ tag: String, what: String = "arguments"
    ) throws(WireError) -> [CapnWebExpression] {
        enter(.index(index))
        guard case .array(let list) = elements[index] else {
            throw failure(
                .invalidExpression,
                "\(CapnWebText.quoted(tag)) \(what) must be an array, got \(Self.kind(elements[index]))")
        }
        try checkDepth()
        let result = try expressionList(list)
        leave()
        return result
    }

    private mutating func remapCaptures(_ elements: [JSONValue]) throws(WireError) -> [CapnWebCapture] {
        enter(.index(3))
        guard case .array(let list) = elements[3] else {
            throw failure(
                .invalidExpression,
                "\"remap\" captures must be an array, got \(Self.kind(elements[3]))")
        }
        try checkDepth()
        var captures: [CapnWebCapture] = []
        captures.reserveCapacity(list.count)
        for (index, capture) in list.enumerated() {
            enter(.index(index))
            guard case .array(let parts) = capture, case .string(let tag)? = parts.first else {
                throw failure(
                    .invalidExpression, "a remap capture must be [\"import\", ID] or [\"export\", ID]")
            }
            try checkDepth()
            guard tag == "import" || tag == "export" else {
                throw failure(.unknownTag, "unknown remap capture tag \(CapnWebText.quoted(tag))")
            }
            try expectArity(parts, tag, 2, 2)
            let id = try integerID(parts, 1, tag)
            captures.append(tag == "import" ? .import(id) : .export(id))
            leave()
        }
        leave()
        return captures
    }

    // MARK: - Depth

    /// Fails when an array or object at the current position would exceed the depth limit.
    private func checkDepth() throws(WireError) {
        if depth >= maxDepth {
            throw failure(
                .depthLimitExceeded, "message nests deeper than the limit of \(maxDepth) levels")
        }
    }

    /// Checks the depth of plain JSON at the current position, stopping at the limit.
    private mutating func checkPlainDepth(_ value: JSONValue) throws(WireError) {
        switch value {
        case .array(let elements):
            try checkDepth()
            for (index, element) in elements.enumerated() {
                enter(.index(index))
                try checkPlainDepth(element)
                leave()
            }
        case .object(let object):
            try checkDepth()
            for (key, member) in object {
                enter(.key(key))
                try checkPlainDepth(member)
                leave()
            }
        default:
            break
        }
    }

    // MARK: - Errors

    /// An error at the current position.
    private func failure(_ code: WireError.Code, _ message: String) -> WireError {
        WireError(code: code, message: message, path: pointer)
    }

    /// The JSON Pointer (RFC 6901) of the current position; the empty string for the root.
    private var pointer: String {
        var text = ""
        for step in steps {
            text += "/"
            switch step {
            case .index(let index):
                text += String(index)
            case .key(let key):
                for character in key.unicodeScalars {
                    switch character {
                    case "~": text += "~0"
                    case "/": text += "~1"
                    default: text.unicodeScalars.append(character)
                    }
                }
            }
        }
        return text
    }

    /// The kind of a JSON value for an error message; a fractional number is `number`.
    private static func kind(_ value: JSONValue) -> String {
        value.kindName
    }

    /// `"tag" takes N elements, got M` or `"tag" takes N to M elements, got K`.
    private static func arityText(_ tag: String, _ minimum: Int, _ maximum: Int, _ count: Int) -> String {
        let expected =
            minimum == maximum
            ? "\(minimum) element\(minimum == 1 ? "" : "s")"
            : "\(minimum) to \(maximum) elements"
        return "\(CapnWebText.quoted(tag)) takes \(expected), got \(count)"
    }
}
