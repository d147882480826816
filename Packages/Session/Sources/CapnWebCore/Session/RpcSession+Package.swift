package import RpcTransport

/// The entry points the package's transport module (`CapnWebNIO`) builds its clients and servers
/// on. They keep the engine's types internal to this module.
extension RpcSession {
    /// Opens a session through `connector`, which it also uses to reconnect, and returns it once
    /// the first connection is up.
    ///
    /// - Parameter executor: Where every connection of the session delivers its events, when
    ///   that is known in advance.
    package static func connect(
        configuration: Configuration,
        executor: (any TaskExecutor)?,
        connector: @escaping @Sendable () async throws -> any MessageTransport
    ) async throws(RpcError) -> RpcSession<API> {
        let connection = SessionConnection(
            configuration: configuration,
            makeMain: { nil },
            executor: executor,
            connector: connector)
        try await connection.connectFirst()
        return RpcSession(connection: connection)
    }

    /// Ends the session like ``close()``, but closes its connection with `code` and `reason`
    /// rather than Cap'n Web's 3000: how a client's service closes when its application shuts
    /// down (1000).
    package func close(code: CloseCode, reason: String) async {
        await connection.close(code: code, reason: reason)
    }

    /// Runs `execute` against the peer's main object over one HTTP batch: what the session sends
    /// is posted in one request by `exchange`, whose answer's messages are then delivered.
    package static func runBatch<T>(
        configuration: Configuration,
        exchange: @escaping @Sendable ([TransportMessage]) async throws(TransportError) -> [TransportMessage],
        isolation: isolated (any Actor)? = #isolation,
        execute: (Ref<API>) async throws -> T
    ) async throws -> T {
        let transport = BatchClientTransport(delay: configuration.batchDelay, exchange: exchange)
        let calls = BatchCallRegistry()
        let connection = SessionConnection(configuration: configuration, makeMain: { nil }, batchCalls: calls)
        connection.attach(transport)
        // The request takes every call made in the batch and still held, asking for each result
        // (awaiting it is the only use left); a call made after it left fails at once.
        transport.beforePost { [weak connection] in
            calls.sendHeldCalls()
            await connection?.currentCore()?.seal(.failed(BatchCallRegistry.lateCall))
        }
        // Through the connection: a weak reference to the engine would slow its reference
        // counting down, and a strong one would be a cycle (the engine holds the transport).
        transport.onAnswered { [weak connection] in
            connection?.currentCore()?.end(.failed(.connectionLost(RpcErrorValue(message: "Batch RPC request ended."))))
        }
        let session = RpcSession<API>(connection: connection)
        let outcome: Result<T, any Error>
        do {
            outcome = .success(try await execute(session.api))
        } catch {
            outcome = .failure(error)
        }
        await transport.finish()
        await connection.close()
        return try outcome.get()
    }
}

/// Why the server side of an HTTP batch could not be answered.
package struct BatchAnswerFailure: Error, CustomStringConvertible {
    /// What went wrong, for the log and the 500 answer.
    package let description: String
}

/// Answers one HTTP batch on the server: a fresh session with `main` as its main object reads
/// `messages` and returns what it sent once every answer the peer asked for is out.
///
/// A cancelled task ends the session; the batch then gets what it has.
package func answerBatch(
    _ messages: [TransportMessage],
    configuration: Configuration,
    main: @escaping @Sendable () -> (any RpcTarget)?
) async throws(BatchAnswerFailure) -> [TransportMessage] {
    let transport = CollectingTransport(maxBodySize: configuration.limits.maxMessageSize)
    let connection = SessionConnection(configuration: configuration, makeMain: main)
    guard let core = connection.attach(transport) else {
        throw BatchAnswerFailure(description: "the server is shutting down")
    }
    transport.feed(messages)
    await withTaskCancellationHandler {
        await core.drain()
    } onCancel: {
        core.end(.failed(.cancelled))
    }
    let answers = transport.takeCollected()
    let failure = core.endReason
    await connection.close()
    if let failure {
        throw BatchAnswerFailure(description: "the batch was aborted: \(failure.rpcError)")
    }
    return answers
}
