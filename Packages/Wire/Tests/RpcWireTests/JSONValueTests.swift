import RpcWire
import Testing

@Suite("JSON value")
struct JSONValueTests {
    // MARK: Accessors

    @Test("Each accessor returns the payload of its own case and nil for every other case")
    func accessors() {
        let values: [JSONValue] = [.null, .bool(true), .integer(3), .double(2.5), .string("s"), .array([1]), .object(["k": 1])]
        #expect(values.map(\.isNull) == [true, false, false, false, false, false, false])
        #expect(values.map(\.boolValue) == [nil, true, nil, nil, nil, nil, nil])
        #expect(values.map(\.stringValue) == [nil, nil, nil, nil, "s", nil, nil])
        #expect(values.map(\.arrayValue) == [nil, nil, nil, nil, nil, [1], nil])
        #expect(values.map(\.objectValue) == [nil, nil, nil, nil, nil, nil, ["k": 1]])
        #expect(values.map(\.doubleValue) == [nil, nil, 3.0, 2.5, nil, nil, nil])
        #expect(values.map(\.kindName) == ["null", "boolean", "integer", "number", "string", "array", "object"])
    }

    @Test("Integer accessors accept doubles that hold an integer exactly and nothing else")
    func integerAccessors() {
        #expect(JSONValue.integer(-7).int64Value == -7)
        #expect(JSONValue.double(3.0).int64Value == 3)
        #expect(JSONValue.double(3.5).int64Value == nil)
        #expect(JSONValue.double(1e30).int64Value == nil)
        #expect(JSONValue.double(.nan).int64Value == nil)
        #expect(JSONValue.string("3").int64Value == nil)
        #expect(JSONValue.integer(Int64.max).intValue == Int(Int64.max))
        #expect(JSONValue.bool(true).intValue == nil)
    }

    @Test("Subscripts reach array elements and object members and return nil otherwise")
    func subscripts() {
        let value: JSONValue = ["list": [10, 20], "name": "x"]
        #expect(value["list"]?[1] == 20)
        #expect(value["list"]?[2] == nil)
        #expect(value["list"]?[-1] == nil)
        #expect(value["missing"] == nil)
        #expect(value[0] == nil)
        #expect(JSONValue.array([1])["key"] == nil)
    }

    // MARK: Literals

    @Test("Literals build the matching cases")
    func literals() {
        let null: JSONValue = nil
        let flag: JSONValue = true
        let integer: JSONValue = 42
        let number: JSONValue = 1.5
        let string: JSONValue = "text"
        let array: JSONValue = [1, "two", nil]
        #expect(null == .null)
        #expect(flag == .bool(true))
        #expect(integer == .integer(42))
        #expect(number == .double(1.5))
        #expect(string == .string("text"))
        #expect(array == .array([.integer(1), .string("two"), .null]))
    }

    @Test("A dictionary literal keeps the first position and the last value of a repeated key")
    func dictionaryLiteralDuplicates() {
        let value: JSONValue = ["a": 1, "b": 2, "a": 3]
        #expect(value.objectValue?.keys == ["a", "b"])
        #expect(value["a"] == 3)
        #expect(value.description == #"{"a":3,"b":2}"#)
    }

    // MARK: Equality and hashing

    @Test("Integers and doubles never compare equal, even with the same numeric value")
    func integerIsNotDouble() {
        #expect(JSONValue.integer(1) != JSONValue.double(1.0))
        #expect(JSONValue.double(1.0) == JSONValue.double(1.0))
    }

    @Test("Objects with the same members in different orders are equal and hash alike")
    func orderInsensitiveEquality() {
        let first: JSONValue = ["a": 1, "b": ["c": true, "d": [1, 2]]]
        let second: JSONValue = ["b": ["d": [1, 2], "c": true], "a": 1]
        #expect(first == second)
        #expect(first.hashValue == second.hashValue)
        #expect(Set([first, second]).count == 1)
        let different: JSONValue = ["b": ["d": [2, 1], "c": true], "a": 1]
        #expect(first != different)
        let extra: JSONValue = ["a": 1, "b": ["c": true, "d": [1, 2]], "e": nil]
        #expect(first != extra)
    }

    @Test("Large objects with a hash index compare and look up like small ones")
    func largeObjects() {
        let pairs = (0..<40).map { ("key\($0)", JSONValue.integer(Int64($0))) }
        let forward = JSONObject(pairs)
        let backward = JSONObject(pairs.reversed())
        #expect(forward == backward)
        #expect(forward.hashValue == backward.hashValue)
        #expect(forward["key17"] == 17)
        #expect(forward.position(ofKey: "key39") == 39)
        var edited = forward
        #expect(edited.removeValue(forKey: "key0") == 0)
        #expect(edited["key39"] == 39)
        #expect(edited.count == 39)
    }

    @Test("Array order matters for equality")
    func arrayOrderMatters() {
        #expect(JSONValue.array([1, 2]) != JSONValue.array([2, 1]))
    }

    // MARK: Keys compared by scalars

    @Test("Keys are compared by Unicode scalars, not by canonical equivalence")
    func keysByScalars() {
        let composed = "\u{E9}"
        let decomposed = "e\u{301}"
        #expect(composed == decomposed, "Swift strings treat the two spellings as equal")
        var object = JSONObject()
        object[composed] = 1
        object[decomposed] = 2
        #expect(object.count == 2)
        #expect(object[composed] == 1)
        #expect(object[decomposed] == 2)
        let first: JSONValue = .object([composed: 1])
        let second: JSONValue = .object([decomposed: 1])
        #expect(first != second)
    }

    // MARK: Updating objects

    @Test("Updating a key keeps its position and returns the value it replaced")
    func objectUpdates() {
        var object: JSONObject = ["a": 1, "b": 2]
        #expect(object.updateValue(5, forKey: "a") == 1)
        #expect(object.updateValue(6, forKey: "c") == nil)
        #expect(object.keys == ["a", "b", "c"])
        #expect(object.values == [5, 2, 6])
        object["b"] = nil
        #expect(object.keys == ["a", "c"])
        #expect(object.removeValue(forKey: "zz") == nil)
    }

    // MARK: Text

    @Test("Description and debug description are compact JSON")
    func descriptions() {
        let value: JSONValue = ["a": [1, 2.5, "x\n"], "b": nil]
        #expect(value.description == #"{"a":[1,2.5,"x\n"],"b":null}"#)
        #expect(value.debugDescription == value.description)
        #expect("\(JSONValue.string("q\"q"))" == #""q\"q""#)
    }

    @Test("Description shows non-finite doubles as null while serialization rejects them")
    func descriptionOfNonFinite() {
        let value: JSONValue = [.double(.infinity), .double(-.infinity), .double(.nan), 1]
        #expect(value.description == "[null,null,null,1]")
        #expect(throws: WireError.self) { try value.jsonString() }
    }

    @Test("Serialized and jsonString agree and honour canonical order")
    func serializedForms() throws {
        let value: JSONValue = ["b": 1, "a": 2]
        #expect(try value.jsonString() == #"{"b":1,"a":2}"#)
        #expect(try value.jsonString(canonical: true) == #"{"a":2,"b":1}"#)
        #expect(try value.serialized(canonical: true) == Array(#"{"a":2,"b":1}"#.utf8))
    }
}
