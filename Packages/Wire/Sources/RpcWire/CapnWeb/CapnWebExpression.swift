/// A Cap'n Web expression: a value as it travels inside a message.
///
/// JSON strings, finite numbers, booleans, `null` and objects stand for themselves (object
/// member values are expressions in turn). Every JSON array is either an escaped literal array
/// (`[[e0, e1, ...]]`, modelled as ``array(_:)``) or a tagged special form such as
/// `["bigint", "5"]` or `["pipeline", 0, ["square"], [5]]`.
///
/// Equality is structural and order-sensitive: two objects with the same members in a different
/// order are different expressions, because they encode to different bytes. A non-finite
/// ``double(_:)`` is never produced by decoding; when encoded it is written as the matching
/// special form (`["inf"]`, `["-inf"]` or `["nan"]`).
///
/// ```swift
/// let call: CapnWebExpression = .pipeline(0, path: ["square"], arguments: [5])
/// print(call)    // pipeline(0, ["square"], [5])
/// ```
public enum CapnWebExpression: Sendable, Hashable {
    // MARK: JSON values

    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number written without fraction or exponent that fits in `Int64`.
    case integer(Int64)
    /// Any other finite number.
    case double(Double)
    /// A string.
    case string(String)
    /// A plain object; each member value is an expression. Members keep their wire order.
    case object([CapnWebMember])
    /// A literal array, escaped on the wire as `[[e0, e1, ...]]`.
    case array([CapnWebExpression])

    // MARK: Pass-by-value special forms

    /// `["undefined"]`.
    case undefined
    /// `["inf"]`: positive infinity.
    case infinity
    /// `["-inf"]`: negative infinity.
    case negativeInfinity
    /// `["nan"]`: not a number.
    case nan
    /// `["bigint", DECIMAL]`: an arbitrary-precision integer as decimal text (an optional `-`
    /// followed by digits).
    case bigint(String)
    /// `["date", MILLISECONDS]`: a JavaScript `Date` as milliseconds since the Unix epoch; `nil`
    /// is the invalid date, written `["date", null]`. Decoding applies JavaScript's rules
    /// (``CapnWebDate/timeClip(_:)``): a time that is not finite or lies beyond ±8.64e15 is the
    /// invalid date and a fraction is cut off; encoding writes such a time the same way, so
    /// `.date(1e300)` is sent as `["date", null]`.
    case date(Double?)
    /// `["bytes", BASE64]` or `["bytes", BASE64, TYPE]`: binary data. Without a type marker the
    /// bytes are a `Uint8Array`.
    case bytes([UInt8], type: CapnWebBytesType? = nil)
    /// An error: `["error", NAME, MESSAGE]`, `["error", NAME, MESSAGE, STACK]`, or
    /// `["error", NAME, MESSAGE, STACK_OR_NULL, PROPERTIES]` when `properties` are present.
    /// A four-element form whose stack is `null` decodes as the three-element form.
    indirect case error(
        name: String, message: String, stack: String? = nil, properties: [CapnWebMember]? = nil)
    /// `["url", HREF]`.
    case url(String)
    /// `["headers", [[NAME, VALUE], ...]]`.
    case headers([CapnWebHeader])
    /// `["request", URL, INIT]`: a fetch `Request`.
    indirect case request(url: String, init: CapnWebFetchInit)
    /// `["response", BODY, INIT]`: a fetch `Response`; BODY is an expression (`null`, a string,
    /// `bytes` or a `readable`).
    indirect case response(body: CapnWebExpression, init: CapnWebFetchInit)
    /// `["blob", MIME_TYPE, ["readable", PIPE_ID]]`: a `Blob` streamed through a pipe.
    case blob(mimeType: String, readable: Int64)

    // MARK: References

    /// `["export", ID]`: the sender exports a stub under a new (negative) ID.
    case export(Int64)
    /// `["promise", ID]`: the sender exports a promise under a new (negative) ID.
    case promise(Int64)
    /// `["import", ID]`, `["import", ID, PATH]` or `["import", ID, PATH, ARGS]`: a stub for the
    /// receiver's own export ID, a property of it, or the result of calling it. Arguments without
    /// a path are written with an empty path.
    case `import`(Int64, path: [CapnWebPathKey]? = nil, arguments: [CapnWebExpression]? = nil)
    /// `["pipeline", ID]`, `["pipeline", ID, PATH]` or `["pipeline", ID, PATH, ARGS]`: a promise
    /// for the receiver's own export ID, a property of it, or the result of calling it (the
    /// normal call form). Arguments without a path are written with an empty path.
    case pipeline(Int64, path: [CapnWebPathKey]? = nil, arguments: [CapnWebExpression]? = nil)
    /// `["remap", ID, PATH, CAPTURES, INSTRUCTIONS]`: `.map()` applied to the value at PATH of
    /// export ID. Inside the instructions, ID 0 is the input, `k` the result of instruction `k`
    /// and `-k` capture `k`.
    indirect case remap(
        Int64, path: [CapnWebPathKey], captures: [CapnWebCapture],
        instructions: [CapnWebExpression])
    /// `["readable", PIPE_ID]`: the readable end of a pipe the sender opened with `["pipe"]`.
    case readable(Int64)
    /// `["writable", ID]`: the sender exports a `WritableStream` under a new (negative) ID.
    case writable(Int64)
}

// MARK: - Literals

extension CapnWebExpression: ExpressibleByBooleanLiteral {
    /// Creates a ``bool(_:)``.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension CapnWebExpression: ExpressibleByIntegerLiteral {
    /// Creates an ``integer(_:)``.
    public init(integerLiteral value: Int64) { self = .integer(value) }
}

extension CapnWebExpression: ExpressibleByFloatLiteral {
    /// Creates a ``double(_:)``.
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension CapnWebExpression: ExpressibleByStringLiteral {
    /// Creates a ``string(_:)``.
    public init(stringLiteral value: String) { self = .string(value) }
}

extension CapnWebExpression: ExpressibleByArrayLiteral {
    /// Creates a literal ``array(_:)``.
    public init(arrayLiteral elements: CapnWebExpression...) { self = .array(elements) }
}

extension CapnWebExpression: ExpressibleByDictionaryLiteral {
    /// Creates an ``object(_:)`` with the members in the order written.
    public init(dictionaryLiteral elements: (String, CapnWebExpression)...) {
        self = .object(elements.map { CapnWebMember($0.0, $0.1) })
    }
}

// MARK: - Description

extension CapnWebExpression: CustomStringConvertible {
    /// A compact, readable form: JSON values as JSON (`"x"`, `25`, `[1, 2]`, `{"a": 1}`),
    /// special forms as calls (`bigint(-5)`, `bytes(3 B, Uint16Array)`,
    /// `pipeline(0, ["square"], [5])`, `error(RangeError, "r")`).
    public var description: String {
        var text = ""
        CapnWebText.appendExpression(self, to: &text)
        return text
    }
}
