/// What the `RpcTarget` conformances `@Rpc` generates call: argument checks with errors naming
/// the method and the argument. Not meant to be called directly.
public enum RpcTargetSupport {
    /// Rejects a call to `method` with fewer than `required` or more than `maximum` arguments.
    ///
    /// - Throws: An ``RpcErrorValue`` named `TypeError`.
    public static func checkCount(_ arguments: RpcArguments, method: String, required: Int, maximum: Int) throws {
        let count = arguments.count
        if count < required {
            let expected = required == maximum ? "\(required)" : "at least \(required)"
            throw RpcErrorValue(
                name: "TypeError",
                message: "\(method): expected \(expected) argument\(required == 1 ? "" : "s"), got \(count)")
        }
        if count > maximum {
            let expected = required == maximum ? "\(maximum)" : "at most \(maximum)"
            throw RpcErrorValue(
                name: "TypeError",
                message: "\(method): expected \(expected) argument\(maximum == 1 ? "" : "s"), got \(count)")
        }
    }

    /// Whether argument `index` was left out (missing, `undefined` or `null`), so that its
    /// default applies.
    public static func isMissing(_ arguments: RpcArguments, _ index: Int) -> Bool {
        arguments.value(at: index).isNullish
    }

    /// Decodes argument `index` of `method` as `type`.
    ///
    /// - Throws: An ``RpcErrorValue`` named `TypeError` naming the method and the parameter.
    public static func decode<T: Decodable>(
        _ type: T.Type, _ arguments: RpcArguments, _ index: Int, method: String, parameter: String
    ) throws -> T {
        do {
            return try arguments.value(at: index).decode(T.self)
        } catch {
            throw RpcErrorValue(
                name: "TypeError",
                message: "\(method): argument \(index) '\(parameter)' is not a valid \(T.self): \(error)")
        }
    }

    /// The reference passed as argument `index` of `method`.
    ///
    /// - Throws: An ``RpcErrorValue`` named `TypeError` naming the method and the parameter when
    ///   the argument is not a reference.
    public static func reference(_ arguments: RpcArguments, _ index: Int, method: String, parameter: String) throws -> Ref<Any> {
        guard case .stub(let stub) = arguments.value(at: index) else {
            throw RpcErrorValue(
                name: "TypeError",
                message: "\(method): argument \(index) '\(parameter)' is not a reference")
        }
        return Ref<Any>(stub)
    }
}
