import CapnWeb

/// Reads the Todo API's positional arguments with clear errors (labels are dropped on the wire,
/// so `get(id: 1)` arrives as `[1]`).
struct ArgumentReader {
    let arguments: RpcArguments
    let method: String

    init(_ arguments: RpcArguments, method: String) {
        self.arguments = arguments
        self.method = method
    }

    /// An ID: a string, or an integer taken as its decimal text.
    func id(_ index: Int) throws -> String {
        switch arguments.value(at: index) {
        case .string(let text) where !text.isEmpty: return text
        case .integer(let number): return String(number)
        case .double(let number) where number.rounded() == number && abs(number) < 9e15: return String(Int64(number))
        default: throw TodoErrors.type("\(method): argument \(index) must be an id (a string or an integer)")
        }
    }

    /// A string of at most `maxLength` characters; `allowEmpty` false rejects blank text.
    func text(_ index: Int, maxLength: Int, allowEmpty: Bool = false) throws -> String {
        guard case .string(let text) = arguments.value(at: index) else {
            throw TodoErrors.type("\(method): argument \(index) must be a string")
        }
        return try Self.checked(text, method: method, maxLength: maxLength, allowEmpty: allowEmpty)
    }

    /// A string argument, or `nil` when missing, `null` or `undefined`.
    func optionalText(_ index: Int, maxLength: Int) throws -> String? {
        arguments.value(at: index).isNullish ? nil : try text(index, maxLength: maxLength, allowEmpty: true)
    }

    /// A non-negative count no larger than `maximum`, or `defaultValue` when missing.
    func limit(_ index: Int, default defaultValue: Int, maximum: Int) throws -> Int {
        let value = arguments.value(at: index)
        if value.isNullish { return min(defaultValue, maximum) }
        let number: Int64
        switch value {
        case .integer(let n): number = n
        case .double(let d) where d.rounded() == d && abs(d) < 9e15: number = Int64(d)
        default: throw TodoErrors.type("\(method): argument \(index) must be an integer")
        }
        guard number >= 0 else { throw TodoErrors.range("\(method): argument \(index) must not be negative") }
        guard number <= Int64(maximum) else {
            throw TodoErrors.range("\(method): argument \(index) must be at most \(maximum) (maxListLimit)")
        }
        return Int(number)
    }

    /// A list of IDs of at most `maximum` elements.
    func ids(_ index: Int, maximum: Int) throws -> [String] {
        guard case .array(let elements) = arguments.value(at: index) else {
            throw TodoErrors.type("\(method): argument \(index) must be an array of ids")
        }
        guard elements.count <= maximum else {
            throw TodoErrors.range("\(method): at most \(maximum) ids at once (maxListLimit)")
        }
        return try elements.indices.map { position in
            try ArgumentReader(RpcArguments(elements), method: method).id(position)
        }
    }

    /// Checks a string's length and blankness.
    static func checked(_ text: String, method: String, maxLength: Int, allowEmpty: Bool) throws -> String {
        if !allowEmpty, text.allSatisfy(\.isWhitespace) {
            throw TodoErrors.type("\(method): the text must not be empty")
        }
        guard text.count <= maxLength else {
            throw TodoErrors.range("\(method): the text is longer than \(maxLength) characters (maxTextLength)")
        }
        return text
    }
}
