import RpcWire
import TinyvexProtocol

/// The functions a ``TinyvexServer`` serves: queries (read-only, one snapshot), mutations (one
/// transaction each, run one at a time) and actions (anything, including running mutations).
///
/// Arguments arrive as `Codable` values decoded from the call's JSON; results are encoded back.
///
/// ```swift
/// var schema = TinyvexSchema()
/// schema.query("todos.list") { (context, _: JSONValue) in try context.all("todos").map(JSONValue.object) }
/// schema.mutation("todos.add") { (context, todo: Todo) in try context.insert("todos", ["title": .string(todo.title)]) }
/// ```
public struct TinyvexSchema: Sendable {
    typealias QueryBody = @Sendable (TinyvexQueryContext, JSONValue) throws -> JSONValue
    typealias MutationBody = @Sendable (TinyvexMutationContext, JSONValue) throws -> JSONValue
    typealias ActionBody = @Sendable (TinyvexActionContext, JSONValue) async throws -> JSONValue

    struct Function<Body: Sendable>: Sendable {
        let requiresIdentity: Bool
        let body: Body
    }

    var queries: [String: Function<QueryBody>] = [:]
    var mutations: [String: Function<MutationBody>] = [:]
    var actions: [String: Function<ActionBody>] = [:]
    /// The declared indexes, by table, then by name.
    var indexes: [String: [String: TinyvexIndex]] = [:]

    /// An empty schema.
    public init() {}

    /// Declares the table `name` with `indexes`, which queries read through with
    /// ``TinyvexTableQuery/withIndex(_:_:)``. Each becomes an SQLite index when the server
    /// opens its store (one declared again with the same name replaces the earlier one here).
    /// Tables need no declaration to be written and read; undeclared ones have no index.
    ///
    /// The server refuses to start (``TinyvexServerError``) when a table, index or field name
    /// is not letters, digits and `_`, or an index has no field.
    ///
    /// ```swift
    /// schema.table("messages", indexes: [TinyvexIndex("by_channel", on: ["channel"])])
    /// ```
    public mutating func table(_ name: String, indexes: [TinyvexIndex]) {
        var declared = self.indexes[name] ?? [:]
        for index in indexes { declared[index.name] = index }
        self.indexes[name] = declared
    }

    /// Registers a query; it may only read, and it sees one snapshot.
    ///
    /// - Parameters:
    ///   - name: The name clients subscribe to.
    ///   - requiresIdentity: Whether callers without an identity get `TVX006`.
    ///   - body: Computes the value from the documents and the params.
    public mutating func query<Params: Decodable & SendableMetatype, Value: Encodable & SendableMetatype>(
        _ name: String,
        requiresIdentity: Bool = false,
        _ body: @escaping @Sendable (TinyvexQueryContext, Params) throws -> Value
    ) {
        queries[name] = Function(requiresIdentity: requiresIdentity) { context, params in
            try Self.encode(body(context, try Self.decode(Params.self, params, code: .subscriptionRejected)))
        }
    }

    /// Registers a mutation. It runs serially, alone in its own savepoint: it sees every
    /// mutation before it, its writes are undone alone when it throws, and it may share the
    /// transaction (and the sync to disk) with mutations that arrived at the same time.
    ///
    /// - Parameters:
    ///   - name: The name clients call.
    ///   - requiresIdentity: Whether callers without an identity get `TVX006`.
    ///   - body: Reads and writes documents and returns the result.
    public mutating func mutation<Args: Decodable & SendableMetatype, Value: Encodable & SendableMetatype>(
        _ name: String,
        requiresIdentity: Bool = false,
        _ body: @escaping @Sendable (TinyvexMutationContext, Args) throws -> Value
    ) {
        mutations[name] = Function(requiresIdentity: requiresIdentity) { context, args in
            try Self.encode(body(context, try Self.decode(Args.self, args, code: .mutationFailed)))
        }
    }

    /// Registers an action; it may wait, do side effects and run queries and mutations.
    ///
    /// - Parameters:
    ///   - name: The name clients call.
    ///   - requiresIdentity: Whether callers without an identity get `TVX006`.
    ///   - body: The action.
    public mutating func action<Args: Decodable & SendableMetatype, Value: Encodable & SendableMetatype>(
        _ name: String,
        requiresIdentity: Bool = false,
        _ body: @escaping @Sendable (TinyvexActionContext, Args) async throws -> Value
    ) {
        actions[name] = Function(requiresIdentity: requiresIdentity) { context, args in
            try Self.encode(await body(context, try Self.decode(Args.self, args, code: .mutationFailed)))
        }
    }

    private static func decode<T: Decodable>(_ type: T.Type, _ value: JSONValue, code: TinyvexErrorCode) throws -> T {
        do {
            return try JSONValueDecoder().decode(type, from: value)
        } catch {
            throw TinyvexServerError(code, "the arguments do not match: \(error)")
        }
    }

    private static func encode<T: Encodable>(_ value: T) throws -> JSONValue {
        try JSONValueEncoder().encode(value)
    }
}
