import Foundation
import Logging
import PostgresNIO
import RpcWire
import Synchronization
import TinyvexProtocol
import TinyvexServer

/// A ``TinyvexServer/PostgresSession`` on one postgres-nio connection: each statement is sent
/// and its rows awaited on the calling thread (the store calls from its own queues, never from
/// an event loop or the cooperative pool).
///
/// When the connection is lost, statements fail with `TVX003` (`databaseUnavailable`) and the
/// next statement after each backoff delay (doubling from `reconnectDelay` to
/// `maxReconnectDelay`) connects again; `onConnect` runs on each new connection first (taking
/// the server's lock again, say) and a connection it refuses is closed.
final class PostgresConnectionSession: PostgresSession {
    private struct State {
        var connection: PostgresConnection?
        var delay: Duration
        var nextAttempt: ContinuousClock.Instant
    }

    private let configuration: PostgresConnection.Configuration
    private let id: Int
    private let logger: Logger
    private let reconnectDelay: Duration
    private let maxReconnectDelay: Duration
    private let onConnect: @Sendable (PostgresConnection) throws -> Void
    private let state: Mutex<State>

    init(
        connection: PostgresConnection, configuration: PostgresConnection.Configuration, id: Int, logger: Logger,
        reconnectDelay: Duration, maxReconnectDelay: Duration, onConnect: @escaping @Sendable (PostgresConnection) throws -> Void = { _ in }
    ) {
        self.configuration = configuration
        self.id = id
        self.logger = logger
        self.reconnectDelay = max(reconnectDelay, .milliseconds(1))
        self.maxReconnectDelay = max(maxReconnectDelay, self.reconnectDelay)
        self.onConnect = onConnect
        self.state = Mutex(State(connection: connection, delay: self.reconnectDelay, nextAttempt: .now))
    }

    /// Closes the current connection.
    func close() async {
        let connection = state.withLock { state in
            defer { state.connection = nil }
            return state.connection
        }
        try? await connection?.close()
    }

    /// The open connection, connecting again when the last one was lost and the backoff delay
    /// has passed.
    private func connection() throws -> PostgresConnection {
        let (current, due) = state.withLock { state in (state.connection, state.nextAttempt <= .now) }
        if let current, !current.isClosed { return current }
        guard due else {
            throw TinyvexServerError(
                .mutationFailed, "the database is unreachable; the server connects again shortly", details: ["reason": "databaseUnavailable"])
        }
        do {
            let fresh = try PostgresConnection.connect(
                on: MultiThreadedEventLoopGroup.singleton.any(), configuration: configuration, id: id, logger: logger
            ).wait()
            do {
                try onConnect(fresh)
            } catch {
                _ = try? fresh.close().wait()
                throw error
            }
            state.withLock { state in
                state.connection = fresh
                state.delay = reconnectDelay
            }
            return fresh
        } catch {
            state.withLock { state in
                state.nextAttempt = .now + state.delay
                state.delay = min(state.delay * 2, maxReconnectDelay)
            }
            throw TinyvexServerError(
                .mutationFailed, "the database is unreachable: \(String(reflecting: error))", details: ["reason": "databaseUnavailable"])
        }
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
        let open = try connection()
        do {
            result = try open.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger).wait()
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
