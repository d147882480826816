/// The type marker of a Cap'n Web `bytes` expression: which binary JavaScript type the bytes
/// stand for.
///
/// The marker is the optional third element of `["bytes", BASE64, TYPE]`. The two-element form
/// has no marker and means a `Uint8Array`. Multi-byte elements are little-endian, and the byte
/// length must be a multiple of ``elementSize``.
public enum CapnWebBytesType: String, Sendable, Hashable, CaseIterable {
    /// `ArrayBuffer` (raw bytes).
    case arrayBuffer = "ArrayBuffer"
    /// `DataView` (raw bytes).
    case dataView = "DataView"
    /// `Int8Array`.
    case int8Array = "Int8Array"
    /// `Uint8Array`.
    case uint8Array = "Uint8Array"
    /// `Uint8ClampedArray`.
    case uint8ClampedArray = "Uint8ClampedArray"
    /// `Int16Array` (2-byte elements).
    case int16Array = "Int16Array"
    /// `Uint16Array` (2-byte elements).
    case uint16Array = "Uint16Array"
    /// `Int32Array` (4-byte elements).
    case int32Array = "Int32Array"
    /// `Uint32Array` (4-byte elements).
    case uint32Array = "Uint32Array"
    /// `BigInt64Array` (8-byte elements).
    case bigInt64Array = "BigInt64Array"
    /// `BigUint64Array` (8-byte elements).
    case bigUint64Array = "BigUint64Array"
    /// `Float32Array` (4-byte elements).
    case float32Array = "Float32Array"
    /// `Float64Array` (8-byte elements).
    case float64Array = "Float64Array"

    /// The size in bytes of one element; the byte length of the data must be a multiple of it.
    public var elementSize: Int {
        switch self {
        case .arrayBuffer, .dataView, .int8Array, .uint8Array, .uint8ClampedArray:
            1
        case .int16Array, .uint16Array:
            2
        case .int32Array, .uint32Array, .float32Array:
            4
        case .bigInt64Array, .bigUint64Array, .float64Array:
            8
        }
    }
}

extension CapnWebBytesType: CustomStringConvertible {
    /// The marker as written on the wire, for example `Uint16Array`.
    public var description: String { rawValue }
}
