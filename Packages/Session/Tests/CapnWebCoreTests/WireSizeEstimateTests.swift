import Synchronization
import Testing
import CapnWebTestSupport
import RpcTransport
import RpcTransportTesting
import RpcWire
@testable import CapnWebCore

/// The size estimate an answer is measured with before it is built: never above what the codec
/// writes (so no answer that fits is refused), and cut short once it passes its limit.
@Suite("Wire size estimates")
struct WireSizeEstimateTests {
    /// What the codec writes for `payload`, serialized as a session would.
    private static func encodedSize(_ payload: RpcPayload) throws -> Int {
        let (a, _) = InMemoryTransport.makePair()
        let core = SessionCore(transport: a, main: nil, limits: .default)
        let expression = try core.state.withLock { state throws(SerializationError) -> CapnWebExpression in
            var serializer = Serializer(core: core)
            return try serializer.serialize(payload, state: &state)
        }
        return try CapnWebCodec().encodeExpression(expression).count
    }

    static let samples: [RpcPayload] = [
        .null, .bool(true), .bool(false), .integer(0), .integer(-7), .integer(.min), .integer(.max),
        .double(1.5), .double(-0.000123), .double(.infinity), .double(.nan),
        .string(""), .string("a\"b\\c\u{1}\n"), .string("héllo 😀"),
        .undefined, .bigint("123"), .bigint("-98765432109876543210"), .date(0), .date(nil),
        .bytes([]), .bytes([1]), .bytes([1, 2]), .bytes([1, 2, 3]), .bytes([1, 2, 3, 4], type: .uint16Array),
        .array([]), .array([.integer(1), .integer(2)]), .object([]),
        .object([.init("a", .integer(1)), .init("b", .string("x"))]),
        .error(RpcErrorValue(name: "Error", message: "m")),
        .error(RpcErrorValue(name: "TypeError", message: "m", stack: "at x", properties: [.init("code", .integer(3))])),
        .url("https://example.com/"), .headers([CapnWebHeader("a", "b"), CapnWebHeader("c", "d")]),
        .array([.object([.init("x", .array([.array([]), .undefined]))]), .string("y")]),
    ]

    @Test("the estimate of every kind of value is at most what the codec writes for it", arguments: samples)
    func estimateIsALowerBound(_ payload: RpcPayload) throws {
        let estimate = WireSizeEstimate.measure(payload, limit: .max)
        let actual = try Self.encodedSize(payload)
        #expect(estimate <= actual, "\(payload): estimated \(estimate), encoded \(actual)")
        #expect(estimate > 0)
    }

    @Test("a value far over the limit is measured only a little past it, and a count of every value makes held results larger")
    func measuringStopsPastTheLimit() {
        let huge = RpcPayload.array(Array(repeating: .string(String(repeating: "x", count: 100)), count: 100_000))
        let measured = WireSizeEstimate.measure(huge, limit: 1000)
        #expect(measured > 1000 && measured < 1300)
        let wire = WireSizeEstimate.measure(huge, limit: .max)
        #expect(wire == 3 + 100_000 * 103)
        let held = WireSizeEstimate.measureHeld(.success(huge), limit: .max)
        #expect(held == wire + 100_001 * MemoryLayout<RpcPayload>.stride)
    }
}
