import CapnWeb

/// A record sent as a value that can also be called: its fields, with some of a target's
/// methods attached as function members (`todos[id]`, `users[id]`).
enum MethodMembers {
    /// The members of `record` followed by `methods` of `target`, each as a function stub.
    ///
    /// - Throws: A `TypeError` when `record` does not encode as an object (`what` names it).
    static func members(
        of record: some Encodable,
        what: String,
        methods: [String],
        of target: some RpcTarget
    ) throws -> [RpcPayload.Member] {
        guard case .object(var members) = try RpcPayload(encoding: record) else {
            throw TodoErrors.type("\(what) is not an object")
        }
        for method in methods {
            members.append(.init(method, .stub(RpcStub(RpcFunction { arguments in
                try await target.call(method, with: arguments)
            }))))
        }
        return members
    }
}
