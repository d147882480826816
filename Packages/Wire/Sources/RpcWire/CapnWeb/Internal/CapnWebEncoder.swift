/// Writes Cap'n Web messages and expressions to a ``CapnWebOutput``.
///
/// The encoder refuses what a receiver with the same configuration would refuse: nesting past
/// ``CapnWebCodec/Configuration/maxDepth``, malformed or oversized bigint text, typed-array
/// bytes whose length is not a multiple of the element size, and a request or response INIT
/// with repeated keys.
struct CapnWebEncoder<Output: CapnWebOutput> {
    var output: Output
    private let maxDepth: Int
    private let maxBigIntDigits: Int
    /// The number of arrays and objects currently open.
    private var depth = 0

    init(output: Output, configuration: CapnWebCodec.Configuration) {
        self.output = output
        maxDepth = configuration.maxDepth
        maxBigIntDigits = configuration.maxBigIntDigits
    }

    // MARK: - Messages

    mutating func message(_ message: CapnWebMessage) throws(WireError) {
        try openArray()
        switch message {
        case .push(let expression):
            output.tag("push")
            output.separator()
            try self.expression(expression)
        case .pull(let importID):
            output.tag("pull")
            output.separator()
            output.integer(importID)
        case .resolve(let exportID, let value):
            output.tag("resolve")
            output.separator()
            output.integer(exportID)
            output.separator()
            try expression(value)
        case .reject(let exportID, let value):
            output.tag("reject")
            output.separator()
            output.integer(exportID)
            output.separator()
            try expression(value)
        case .release(let importID, let refcount):
            output.tag("release")
            output.separator()
            output.integer(importID)
            output.separator()
            output.integer(refcount)
        case .abort(let expression):
            output.tag("abort")
            output.separator()
            try self.expression(expression)
        case .stream(let expression):
            output.tag("stream")
            output.separator()
            try self.expression(expression)
        case .pipe:
            output.tag("pipe")
        }
        closeArray()
    }

    // MARK: - Expressions

    mutating func expression(_ expression: CapnWebExpression) throws(WireError) {
        switch expression {
        case .null:
            output.null()
        case .bool(let flag):
            output.bool(flag)
        case .integer(let integer):
            output.integer(integer)
        case .double(let double):
            if double.isFinite {
                try output.double(double)
            } else if double.isNaN {
                try bare("nan")
            } else if double < 0 {
                try bare("-inf")
            } else {
                try bare("inf")
            }
        case .string(let string):
            output.string(string)
        case .object(let members):
            try object(members)
        case .array(let elements):
            // The literal array is wrapped in one more array to escape it.
            try openArray()
            try openArray()
            try list(elements)
            closeArray()
            closeArray()
        case .undefined:
            try bare("undefined")
        case .infinity:
            try bare("inf")
        case .negativeInfinity:
            try bare("-inf")
        case .nan:
            try bare("nan")
        case .bigint(let text):
            switch CapnWebBigInt.check(text, maxDigits: maxBigIntDigits) {
            case .valid:
                break
            case .malformed:
                throw WireError(
                    code: .invalidBigInt,
                    message: "bigint text \(CapnWebText.quoted(text)) is not a decimal integer")
            case .tooLong(let digits):
                throw WireError(
                    code: .invalidBigInt,
                    message: "bigint has \(digits) digits, more than the limit of \(maxBigIntDigits)")
            }
            try openTagged("bigint")
            output.string(text)
            closeArray()
        case .date(let milliseconds):
            try openTagged("date")
            // As the reference writes a `Date`: its clipped time, or null for the invalid date.
            if let milliseconds = CapnWebDate.timeClip(milliseconds) {
                if let integral = CapnWebNumbers.exactInteger(milliseconds) {
                    output.integer(integral)
                } else {
                    try output.double(milliseconds)
                }
            } else {
                output.null()
            }
            closeArray()
        case .bytes(let bytes, let type):
            if let type, bytes.count % type.elementSize != 0 {
                throw WireError(
                    code: .misalignedBytes,
                    message: "\(type.rawValue) byte length \(bytes.count) is not a multiple of \(type.elementSize)")
            }
            try openTagged("bytes")
            output.base64(bytes)
            if let type {
                output.separator()
                output.string(type.rawValue)
            }
            closeArray()
        case .error(let name, let message, let stack, let properties):
            try openTagged("error")
            output.string(name)
            output.separator()
            output.string(message)
            if let properties {
                output.separator()
                if let stack {
                    output.string(stack)
                } else {
                    output.null()
                }
                output.separator()
                try object(properties)
            } else if let stack {
                output.separator()
                output.string(stack)
            }
            closeArray()
        case .url(let href):
            try openTagged("url")
            output.string(href)
            closeArray()
        case .headers(let headers):
            try openTagged("headers")
            try openArray()
            for (position, header) in headers.enumerated() {
                if position > 0 { output.separator() }
                try openArray()
                output.string(header.name)
                output.separator()
                output.string(header.value)
                closeArray()
            }
            closeArray()
            closeArray()
        case .request(let url, let requestInit):
            try openTagged("request")
            output.string(url)
            output.separator()
            try fetchInit(requestInit, tag: "request")
            closeArray()
        case .response(let body, let responseInit):
            try openTagged("response")
            try self.expression(body)
            output.separator()
            try fetchInit(responseInit, tag: "response")
            closeArray()
        case .blob(let mimeType, let readable):
            try openTagged("blob")
            output.string(mimeType)
            output.separator()
            try openTagged("readable")
            output.integer(readable)
            closeArray()
            closeArray()
        case .export(let id):
            try reference("export", id)
        case .promise(let id):
            try reference("promise", id)
        case .readable(let id):
            try reference("readable", id)
        case .writable(let id):
            try reference("writable", id)
        case .import(let id, let path, let arguments):
            try openTagged("import")
            try call(id, path, arguments)
            closeArray()
        case .pipeline(let id, let path, let arguments):
            try openTagged("pipeline")
            try call(id, path, arguments)
            closeArray()
        case .remap(let id, let path, let captures, let instructions):
            try openTagged("remap")
            output.integer(id)
            output.separator()
            try self.path(path)
            output.separator()
            try openArray()
            for (position, capture) in captures.enumerated() {
                if position > 0 { output.separator() }
                switch capture {
                case .import(let captured):
                    try reference("import", captured)
                case .export(let captured):
                    try reference("export", captured)
                }
            }
            closeArray()
            output.separator()
            try openArray()
            try list(instructions)
            closeArray()
            closeArray()
        }
    }

    // MARK: - Pieces

    /// Opens an array, failing past the depth limit.
    @inline(__always)
    private mutating func openArray() throws(WireError) {
        depth += 1
        if depth > maxDepth {
            throw Self.depthError(maxDepth)
        }
        output.beginArray()
    }

    @inline(__always)
    private mutating func closeArray() {
        depth -= 1
        output.endArray()
    }

    /// Opens an array and writes its tag and the separator after it.
    @inline(__always)
    private mutating func openTagged(_ tag: StaticString) throws(WireError) {
        try openArray()
        output.tag(tag)
        output.separator()
    }

    /// `[TAG]`.
    private mutating func bare(_ tag: StaticString) throws(WireError) {
        try openArray()
        output.tag(tag)
        closeArray()
    }

    /// `[TAG, ID]`.
    private mutating func reference(_ tag: StaticString, _ id: Int64) throws(WireError) {
        try openTagged(tag)
        output.integer(id)
        closeArray()
    }

    /// `ID`, `ID, PATH` or `ID, PATH, ARGS` of an `import` or `pipeline`.
    private mutating func call(
        _ id: Int64, _ path: [CapnWebPathKey]?, _ arguments: [CapnWebExpression]?
    ) throws(WireError) {
        output.integer(id)
        if path != nil || arguments != nil {
            output.separator()
            try self.path(path ?? [])
        }
        if let arguments {
            output.separator()
            try openArray()
            try list(arguments)
            closeArray()
        }
    }

    private mutating func path(_ path: [CapnWebPathKey]) throws(WireError) {
        try openArray()
        for (position, key) in path.enumerated() {
            if position > 0 { output.separator() }
            switch key {
            case .property(let name):
                output.string(name)
            case .index(let index):
                output.integer(index)
            }
        }
        closeArray()
    }

    /// The elements of an open array.
    private mutating func list(_ elements: [CapnWebExpression]) throws(WireError) {
        var first = true
        for element in elements {
            if first {
                first = false
            } else {
                output.separator()
            }
            try expression(element)
        }
    }

    private mutating func object(_ members: [CapnWebMember]) throws(WireError) {
        depth += 1
        if depth > maxDepth {
            throw Self.depthError(maxDepth)
        }
        output.beginObject()
        var first = true
        for member in members {
            if first {
                first = false
            } else {
                output.separator()
            }
            output.key(member.key)
            try expression(member.value)
        }
        depth -= 1
        output.endObject()
    }

    private mutating func fetchInit(
        _ fetchInit: CapnWebFetchInit, tag: StaticString
    ) throws(WireError) {
        let members = fetchInit.members
        for (position, member) in members.enumerated() {
            if case .field(let key, _) = member, key.utf8.elementsEqual("body".utf8) {
                throw WireError(
                    code: .invalidExpression,
                    message: "\"\(tag)\" init field \"body\" must be given as the body expression")
            }
            for earlier in members[..<position] where earlier.key.utf8.elementsEqual(member.key.utf8) {
                throw WireError(
                    code: .invalidExpression,
                    message: "\"\(tag)\" init repeats the key \(CapnWebText.quoted(member.key))")
            }
        }
        depth += 1
        if depth > maxDepth {
            throw Self.depthError(maxDepth)
        }
        output.beginObject()
        for (position, member) in members.enumerated() {
            if position > 0 { output.separator() }
            output.key(member.key)
            switch member {
            case .body(let body):
                try expression(body)
            case .field(_, let value):
                if Self.nestingExceeds(value, limit: maxDepth - depth) {
                    throw Self.depthError(maxDepth)
                }
                try output.json(value)
            }
        }
        depth -= 1
        output.endObject()
    }

    /// Whether `value` holds arrays or objects nested more than `limit` deep.
    private static func nestingExceeds(_ value: JSONValue, limit: Int) -> Bool {
        switch value {
        case .array(let elements):
            if limit <= 0 { return true }
            return elements.contains { nestingExceeds($0, limit: limit - 1) }
        case .object(let object):
            if limit <= 0 { return true }
            return object.contains { nestingExceeds($0.value, limit: limit - 1) }
        default:
            return false
        }
    }

    private static func depthError(_ maxDepth: Int) -> WireError {
        WireError(
            code: .depthLimitExceeded,
            message: "message nests deeper than the limit of \(maxDepth) levels")
    }
}
