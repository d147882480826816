import Foundation
import RpcDo
import Testing

@Suite("RpcValue")
struct RpcValueTests {
    struct Point: Codable, Equatable {
        var x: Int
        var label: String
    }

    @Test("from(_:) converts plain Swift values, nested collections and Encodable values")
    func fromAny() {
        #expect(RpcValue.from(nil) == .null)
        #expect(RpcValue.from(true) == .bool(true))
        #expect(RpcValue.from(42) == .int(42))
        #expect(RpcValue.from(UInt8(7)) == .int(7))
        #expect(RpcValue.from(1.5) == .double(1.5))
        #expect(RpcValue.from("hi") == .string("hi"))
        #expect(RpcValue.from([1, 2]) == .array([.int(1), .int(2)]))
        #expect(RpcValue.from(["a": [true]]) == .object(["a": .array([.bool(true)])]))
        #expect(RpcValue.from(Point(x: 1, label: "p")) == .object(["x": .int(1), "label": .string("p")]))
        #expect(RpcValue.from(RpcValue.int(3)) == .int(3))
    }

    @Test("from(_:) keeps integers of every width that fit an Int and turns wider ones into doubles")
    func fromWideIntegers() {
        // An int where the value fits this platform's Int (64 or 32 bits), otherwise a double.
        func expected<Integer: BinaryInteger>(_ value: Integer) -> RpcValue {
            Int(exactly: value).map(RpcValue.int) ?? .double(Double(value))
        }
        #expect(RpcValue.from(Int64.max) == expected(Int64.max))
        #expect(RpcValue.from(Int64.min) == expected(Int64.min))
        #expect(RpcValue.from(UInt32.max) == expected(UInt32.max))
        #expect(RpcValue.from(UInt64.max) == .double(18_446_744_073_709_551_616.0))
        #expect(RpcValue.from(UInt.max) == .double(Double(UInt.max)))
        #expect(RpcValue.from(UInt64(Int.max)) == .int(.max))
        #expect(RpcValue.from(Int8.min) == .int(-128))
    }

    @Test("asAny gives plain Swift values back")
    func asAny() {
        let value = RpcValue.object(["n": .int(1), "list": .array([.string("a"), .null])])
        let plain = value.asAny as? [String: Any?]
        #expect(plain?["n"] as? Int == 1)
        let list = plain?["list"] as? [Any?]
        #expect(list?.count == 2)
        #expect(list?.first as? String == "a")
        #expect(RpcValue.null.asAny == nil)
    }

    @Test("Codable round-trips every case through JSON")
    func codable() throws {
        let value = RpcValue.array([.null, .bool(false), .int(-3), .double(2.5), .string("s"), .object(["k": .array([])])])
        let data = try JSONEncoder().encode(value)
        #expect(try JSONDecoder().decode(RpcValue.self, from: data) == value)
        let decoded = try JSONDecoder().decode(RpcValue.self, from: Data(#"{"a":1,"b":1.25,"c":"x"}"#.utf8))
        #expect(decoded == .object(["a": .int(1), "b": .double(1.25), "c": .string("x")]))
    }

    @Test("requests and responses encode with the seed's fields")
    func requestResponse() throws {
        let request = RpcRequest(method: "users.get", params: [.string("1")])
        #expect(!request.id.isEmpty)
        #expect(RpcRequest(method: "x").id != RpcRequest(method: "x").id)
        let response = RpcResponse(id: "1", error: RpcResponseError(code: -32601, message: "no such method"))
        let data = try JSONEncoder().encode(response)
        let back = try JSONDecoder().decode(RpcResponse.self, from: data)
        #expect(back.id == "1")
        #expect(back.result == nil)
        #expect(back.error == RpcResponseError(code: -32601, message: "no such method"))
    }
}
