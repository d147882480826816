import Foundation
import RpcWire
import Testing

/// Integers from the wire at the limits of their types: numbers a peer writes (ids, exponents,
/// times) are read into typed values or refused with a typed error, never trapped on.
@Suite("Integers at the limits of their types")
struct IntegerExtremesTests {
    private func parse(_ text: String) throws(WireError) -> JSONValue {
        try JSONParser().parse(text)
    }

    private func failureCode(_ text: String) -> WireError.Code? {
        do throws(WireError) {
            _ = try parse(text)
            return nil
        } catch {
            return error.code
        }
    }

    @Test("integers at and just past Int64's limits read as integers and as doubles")
    func int64Limits() throws {
        #expect(try parse("9223372036854775807") == .integer(.max))
        #expect(try parse("-9223372036854775808") == .integer(.min))
        #expect(try parse("9223372036854775808") == .double(9_223_372_036_854_775_808.0))
        #expect(try parse("-9223372036854775809") == .double(-9_223_372_036_854_775_808.0))
        #expect(try parse("18446744073709551616") == .double(18_446_744_073_709_551_616.0))
        #expect(try parse("99999999999999999999") == .double(1e20))
    }

    @Test("exponents of any length in literals longer than 512 bytes saturate instead of overflowing")
    func longLiteralExponents() throws {
        // Past 512 bytes a literal takes the long conversion, whose exponent arithmetic must
        // hold an exponent of any length (it used to saturate at 10^9, and then multiply by 10,
        // past a 32-bit Int).
        let long = String(repeating: "1", count: 600)
        let manyNines = String(repeating: "9", count: 40)
        #expect(failureCode(long + "e" + manyNines) == .numberOutOfRange)
        #expect(failureCode(long + "e+1000000000") == .numberOutOfRange)
        #expect(try parse(long + "e-" + manyNines) == .double(0))
        #expect(try parse("-" + long + "e-1000000000") == .double(-0.0))
        #expect(failureCode("0." + String(repeating: "0", count: 600) + "1e" + manyNines) == .numberOutOfRange)
        // The exponent and the fraction's length cancel out exactly.
        #expect(try parse("0." + String(repeating: "0", count: 599) + "1e600") == .double(1))
        #expect(try parse(long + ".5e-600") == .double(try #require(Double(long + ".5e-600"))))
    }

    @Test("short literals with huge exponents are out of range or zero")
    func shortLiteralExponents() throws {
        #expect(failureCode("1e999999999") == .numberOutOfRange)
        #expect(failureCode("1e100000000000000000") == .numberOutOfRange)
        #expect(failureCode("-1e9223372036854775807") == .numberOutOfRange)
        #expect(try parse("1e-9223372036854775808") == .double(0))
        #expect(failureCode("0.0000000001e9223372036854775807999") == .numberOutOfRange)
    }

    @Test("Cap'n Web IDs and refcounts at Int64's limits are read; past them they are refused")
    func capnWebIDs() throws {
        let codec = CapnWebCodec()
        #expect(try codec.decode("[\"pull\",9223372036854775807]") == .pull(importID: .max))
        #expect(try codec.decode("[\"release\",-9223372036854775808,9223372036854775807]") == .release(importID: .min, refcount: .max))
        // -9223372036854775809 reads as the double -2^63, which is Int64.min exactly.
        #expect(try codec.decode("[\"pull\",-9223372036854775809]") == .pull(importID: .min))
        for text in ["[\"pull\",9223372036854775808]", "[\"pull\",1e300]", "[\"release\",1,18446744073709551616]"] {
            #expect(throws: WireError.self, "\(text)") { try codec.decode(text) }
        }
    }

    @Test("a Cap'n Web codec whose maxDepth is Int.min or Int.max refuses or reads messages without trapping")
    func capnWebDepthLimits() throws {
        let none = CapnWebCodec(configuration: CapnWebCodec.Configuration(maxDepth: .min))
        #expect(throws: WireError.self) { try none.decode("[\"pull\",1]") }
        let unlimited = CapnWebCodec(configuration: CapnWebCodec.Configuration(maxDepth: .max))
        #expect(try unlimited.decode("[\"pull\",1]") == .pull(importID: 1))
    }

    @Test("JSON-RPC ids at Int64's limits are read; past them, or fractional, they are refused")
    func jsonRPCIDs() throws {
        let codec = JSONRPCCodec()
        let maxID = try codec.decode(Array(#"{"jsonrpc":"2.0","id":9223372036854775807,"result":1}"#.utf8))
        #expect(maxID == .single(.success(id: .number(.max), result: 1)))
        let minID = try codec.decode(Array(#"{"jsonrpc":"2.0","id":-9223372036854775808,"result":1}"#.utf8))
        #expect(minID == .single(.success(id: .number(.min), result: 1)))
        for id in ["9223372036854775808", "1e300", "0.5", "-9223372036854775810000"] {
            let text = #"{"jsonrpc":"2.0","id":"# + id + #","result":1}"#
            #expect(throws: WireError.self, "\(id)") { try codec.decode(Array(text.utf8)) }
        }
        let code = try codec.decode(Array(#"{"jsonrpc":"2.0","id":1,"error":{"code":-9223372036854775808,"message":"m"}}"#.utf8))
        #expect(code == .single(.failure(id: 1, error: JSONRPCErrorObject(code: Int(Int64.min), message: "m"))))
        #expect(throws: WireError.self) {
            try codec.decode(Array(#"{"jsonrpc":"2.0","id":1,"error":{"code":9223372036854775808,"message":"m"}}"#.utf8))
        }
    }

    @Test("Codable integers of every width refuse numbers outside their range with a DecodingError")
    func codableRanges() throws {
        let decoder = JSONValueDecoder()
        #expect(try decoder.decode(Int64.self, from: .integer(.min)) == .min)
        #expect(try decoder.decode(UInt64.self, from: .double(18_446_744_073_709_549_568.0)) == 18_446_744_073_709_549_568)
        #expect(throws: DecodingError.self) { try decoder.decode(Int64.self, from: .double(9_223_372_036_854_775_808.0)) }
        #expect(throws: DecodingError.self) { try decoder.decode(UInt64.self, from: .integer(-1)) }
        #expect(throws: DecodingError.self) { try decoder.decode(Int.self, from: .double(1e300)) }
        #expect(throws: DecodingError.self) { try decoder.decode(Int32.self, from: .integer(.max)) }
        #expect(throws: DecodingError.self) { try decoder.decode(UInt8.self, from: .integer(256)) }
        #expect(throws: DecodingError.self) { try decoder.decode(Int.self, from: .double(.nan)) }
    }

    @Test("ISO 8601 times at the ends of years 0000 and 9999, with the widest offsets, are exact")
    func iso8601Extremes() throws {
        // Seconds reach 2.5e11 here, past a 32-bit Int: the arithmetic is 64-bit everywhere.
        var decoder = JSONValueDecoder()
        decoder.dateDecodingStrategy = .iso8601
        #expect(try decoder.decode(Date.self, from: .string("9999-12-31T23:59:59Z")) == Date(timeIntervalSince1970: 253_402_300_799))
        #expect(try decoder.decode(Date.self, from: .string("0000-01-01T00:00:00Z")) == Date(timeIntervalSince1970: -62_167_219_200))
        #expect(
            try decoder.decode(Date.self, from: .string("9999-12-31T23:59:59-23:59"))
                == Date(timeIntervalSince1970: 253_402_300_799 + 86_340))
        #expect(
            try decoder.decode(Date.self, from: .string("0000-01-01T00:00:00+23:59"))
                == Date(timeIntervalSince1970: -62_167_219_200 - 86_340))
        var encoder = JSONValueEncoder()
        encoder.dateEncodingStrategy = .iso8601
        #expect(try encoder.encode(Date(timeIntervalSince1970: 253_402_300_799.9)) == "9999-12-31T23:59:59Z")
        #expect(try encoder.encode(Date(timeIntervalSince1970: -62_167_219_200)) == "0000-01-01T00:00:00Z")
        #expect(throws: EncodingError.self) { try encoder.encode(Date(timeIntervalSince1970: 253_402_300_800)) }
        #expect(throws: EncodingError.self) { try encoder.encode(Date(timeIntervalSince1970: .greatestFiniteMagnitude)) }
    }
}
