import Foundation
import Logging
import PostgresNIO
import RpcWire
import TinyvexProtocol
import TinyvexServer

/// A ``TinyvexServer/PostgresSession`` on one postgres-nio connection: each statement is sent
/// and its rows awaited on the calling thread (the store calls from its own queues, never from
/// an event loop or the cooperative pool).
final class PostgresConnectionSession: PostgresSession {
    let connection: PostgresConnection
    private let logger: Logger

    init(connection: PostgresConnection, logger: Logger) {
        self.connection = connection
        self.logger = logger
    }

    func run(_ sql: String, _ binds: [PostgresValue]) throws -> [[PostgresValue]] {
        var bindings = PostgresBindings(capacity: binds.count)
        for bind in binds {
            switch bind {
            case .null: bindings.appendNull()
            case .integer(let number): bindings.append(number)
            case .real(let number): bindings.append(number)
            case .text(let text): bindings.append(text)
            case .bytes(let bytes): try bindings.append(Data(bytes))
            }
        }
        let result: PostgresQueryResult
        do {
            result = try connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger).wait()
        } catch {
            throw TinyvexServerError(.mutationFailed, "the database failed: \(String(reflecting: error))", details: ["reason": "databaseFailed"])
        }
        var rows: [[PostgresValue]] = []
        for row in result.rows {
            var values: [PostgresValue] = []
            for cell in row {
                values.append(try Self.value(cell))
            }
            rows.append(values)
        }
        return rows
    }

    private static func value(_ cell: PostgresCell) throws -> PostgresValue {
        guard cell.bytes != nil else { return .null }
        do {
            switch cell.dataType {
            case .int2, .int4, .int8: return .integer(try cell.decode(Int64.self))
            case .float4, .float8: return .real(try cell.decode(Double.self))
            case .bytea: return .bytes(Array(try cell.decode(Data.self)))
            default: return .text(try cell.decode(String.self))
            }
        } catch {
            throw TinyvexServerError(.mutationFailed, "a value from the database cannot be read: \(String(reflecting: error))")
        }
    }
}
