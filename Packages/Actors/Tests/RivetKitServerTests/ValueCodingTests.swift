import RivetKit
@testable import RivetKitServer
import Testing

@Suite("Action outputs and event arguments as JSON")
struct ValueCodingTests {
    @Test("Integers, strings, booleans and JSON values come out as the JSON encoder makes them")
    func commonOutputsMatchTheEncoder() throws {
        let values: [any Encodable & Sendable] = [
            0, -1, Int.max, Int.min, "", "héllo \"quoted\"\n", true, false,
            JSONValue.null, JSONValue.array([1, "x", ["$BigInt", "1"]]), JSONValue.object(["a": 1.5]),
        ]
        for value in values {
            let direct = try ActorValueCoding.encode(value)
            let encoded = try JSONValueEncoder().encode(value)
            #expect(direct == encoded, "\(value)")
        }
        // Other types still go through the encoder.
        #expect(try ActorValueCoding.encode([1, 2]) == [1, 2])
        #expect(try ActorValueCoding.encode(2.5) == .double(2.5))
        #expect(throws: ActorError.self) { try ActorValueCoding.encode(Double.nan) }
    }
}
