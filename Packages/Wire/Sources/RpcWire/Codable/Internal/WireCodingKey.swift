/// A coding key made at run time: the `super` key, positions in unkeyed containers
/// (`Index N`) and keys of objects read without a known key type.
struct WireCodingKey: CodingKey, Sendable {
    let stringValue: String
    let intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        self.intValue = nil
    }

    init(intValue: Int) {
        self.stringValue = String(intValue)
        self.intValue = intValue
    }

    /// The key of the element at `index` of an unkeyed container.
    init(index: Int) {
        self.stringValue = "Index \(index)"
        self.intValue = index
    }

    /// The key under which `superEncoder()` and `superDecoder()` store the superclass.
    static let superKey = WireCodingKey(stringValue: "super")
}
