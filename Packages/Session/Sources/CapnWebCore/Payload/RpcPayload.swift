public import RpcWire

/// A value crossing a Cap'n Web session, with its live references.
///
/// Plain data mirrors the wire's value forms: JSON values plus `undefined`, non-finite numbers
/// (as ``double(_:)``), bigints, dates, bytes, errors, URLs, headers, requests and responses.
/// References are live: ``stub(_:)`` is a capability (a remote object, a local ``RpcTarget`` or
/// a function), and ``readable(_:)``/``writable(_:)`` are streams.
///
/// Values received from the peer never hold unresolved promises: the session awaits them and
/// puts their values in place before a call or a result is delivered.
///
/// Most code converts to and from Swift types with ``init(encoding:)`` and ``decode(_:)``
/// instead of building payloads by hand.
public enum RpcPayload: Sendable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number that is an integer fitting in `Int64`.
    case integer(Int64)
    /// Any other number, including infinities and NaN.
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([RpcPayload])
    /// A plain object; members keep their order.
    case object([Member])
    /// JavaScript's `undefined`, distinct from `null`.
    case undefined
    /// An arbitrary-precision integer as decimal text, e.g. `"-5"`.
    case bigint(String)
    /// A JavaScript `Date` as milliseconds since 1970; `nil` is the invalid date.
    ///
    /// A time JavaScript cannot hold (not finite, or beyond ±8.64e15 ms) is the invalid date
    /// too: it is sent as `["date", null]`, and one received arrives as `nil`. A received time
    /// has its fraction cut off, as `new Date(t)` does (see `CapnWebDate.timeClip(_:)`).
    case date(Double?)
    /// Binary data; `type` names the JavaScript view (`nil` is `Uint8Array`).
    case bytes([UInt8], type: CapnWebBytesType? = nil)
    /// An error value.
    indirect case error(RpcErrorValue)
    /// A URL as its text.
    case url(String)
    /// HTTP headers as name-value pairs.
    case headers([CapnWebHeader])
    /// A fetch `Request`: its URL, its INIT members other than the body, and its body.
    indirect case request(url: String, init: CapnWebFetchInit, body: RpcPayload?)
    /// A fetch `Response`: its body and its INIT members.
    indirect case response(body: RpcPayload, init: CapnWebFetchInit)
    /// A `Blob`: its MIME type and its bytes as a stream.
    case blob(mimeType: String, RpcReadableStream)
    /// A capability: a remote object, a local target or a function.
    case stub(RpcStub)
    /// A readable stream.
    case readable(RpcReadableStream)
    /// A writable stream.
    case writable(RpcWritableStream)

    /// One member of an ``object(_:)``.
    public struct Member: Sendable {
        /// The member's key.
        public var key: String
        /// The member's value.
        public var value: RpcPayload

        /// Creates a member.
        public init(_ key: String, _ value: RpcPayload) {
            self.key = key
            self.value = value
        }
    }
}

extension RpcPayload {
    /// The value of member `key` of an object, `nil` for a missing key or a non-object.
    public subscript(key: String) -> RpcPayload? {
        guard case .object(let members) = self else { return nil }
        return members.last { $0.key == key }?.value
    }

    /// The element at `index` of an array, `nil` when out of range or not an array.
    public subscript(index: Int) -> RpcPayload? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }

    /// Whether the value is `null` or `undefined`.
    public var isNullish: Bool {
        switch self {
        case .null, .undefined: true
        default: false
        }
    }
}

extension RpcPayload: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    /// Creates ``null``.
    public init(nilLiteral: ()) { self = .null }
    /// Creates a ``bool(_:)``.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// Creates an ``integer(_:)``.
    public init(integerLiteral value: Int64) { self = .integer(value) }
    /// Creates a ``double(_:)``.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// Creates a ``string(_:)``.
    public init(stringLiteral value: String) { self = .string(value) }
    /// Creates an ``array(_:)``.
    public init(arrayLiteral elements: RpcPayload...) { self = .array(elements) }
    /// Creates an ``object(_:)`` with the members in order.
    public init(dictionaryLiteral elements: (String, RpcPayload)...) {
        self = .object(elements.map { Member($0.0, $0.1) })
    }
}
