/// A writable stream: a local sink handed to the peer, or a remote sink the peer handed to us.
///
/// Writes are sent without waiting for each to be acknowledged; ``close()`` waits until every
/// write has been delivered and fails if any of them failed.
///
/// ```swift
/// let sink = RpcWritableStream { chunk in print(chunk) }
/// let count: Int = try await session.api.writeTo(sink, 2)
/// ```
public final class RpcWritableStream: Sendable {
    let sink: any WritableSink

    init(sink: any WritableSink) {
        self.sink = sink
    }

    /// A local sink: `write` runs for each chunk in order, `close` once at the end, `abort` when
    /// the writer gives up.
    public convenience init(
        write: @escaping @Sendable (RpcPayload) async throws -> Void,
        close: @escaping @Sendable () async throws -> Void = {},
        abort: @escaping @Sendable (RpcPayload) async -> Void = { _ in }
    ) {
        self.init(sink: LocalWritableSink(write: write, close: close, abort: abort))
    }

    /// Writes one chunk.
    public func write(_ chunk: RpcPayload) async throws {
        try await sink.write(chunk)
    }

    /// Writes one encodable chunk.
    public func write<T: Encodable>(encoding chunk: T) async throws {
        try await sink.write(try RpcPayload(encoding: chunk))
    }

    /// Ends the stream once every write has been delivered.
    public func close() async throws {
        try await sink.close()
    }

    /// Ends the stream with an error.
    public func abort(_ reason: RpcPayload) async {
        await sink.abort(reason)
    }
}

/// Where a writable stream's chunks go.
protocol WritableSink: Sendable {
    func write(_ chunk: RpcPayload) async throws
    func close() async throws
    func abort(_ reason: RpcPayload) async
}

/// A sink made of closures, run on this side.
struct LocalWritableSink: WritableSink {
    let writeBody: @Sendable (RpcPayload) async throws -> Void
    let closeBody: @Sendable () async throws -> Void
    let abortBody: @Sendable (RpcPayload) async -> Void

    init(
        write: @escaping @Sendable (RpcPayload) async throws -> Void,
        close: @escaping @Sendable () async throws -> Void,
        abort: @escaping @Sendable (RpcPayload) async -> Void
    ) {
        self.writeBody = write
        self.closeBody = close
        self.abortBody = abort
    }

    func write(_ chunk: RpcPayload) async throws { try await writeBody(chunk) }
    func close() async throws { try await closeBody() }
    func abort(_ reason: RpcPayload) async { await abortBody(reason) }
}
