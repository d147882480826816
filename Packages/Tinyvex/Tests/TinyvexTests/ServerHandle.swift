import Foundation
import RpcTransport
import Testing
import TinyvexServer

/// A server running in its own task until ``stop()``: what the fault tests restart.
final class ServerHandle: Sendable {
    let url: String
    let port: Int
    private let stopSignal: AsyncStream<Void>.Continuation
    private let task: Task<Void, any Error>

    private init(url: String, port: Int, stopSignal: AsyncStream<Void>.Continuation, task: Task<Void, any Error>) {
        self.url = url
        self.port = port
        self.stopSignal = stopSignal
        self.task = task
    }

    /// Starts a server on `port` (0 for any) and returns once it listens.
    static func start(schema: TinyvexSchema, database: TinyvexDatabase, port: Int = 0) async throws -> ServerHandle {
        let (stop, stopSignal) = AsyncStream<Void>.makeStream()
        let (ready, readySignal) = AsyncStream<(String, Int)>.makeStream()
        let task = Task {
            try await TinyvexServer.withServer(schema: schema, database: database, port: port) { server in
                readySignal.yield((server.url, server.port ?? 0))
                readySignal.finish()
                for await _ in stop { break }
            }
        }
        var iterator = ready.makeAsyncIterator()
        guard let (url, bound) = await iterator.next() else {
            try await task.value
            throw CancellationError()
        }
        return ServerHandle(url: url, port: bound, stopSignal: stopSignal, task: task)
    }

    /// Closes every connection and stops listening; returns once the server is down.
    func stop() async throws {
        stopSignal.yield()
        stopSignal.finish()
        try await task.value
    }
}

func temporaryDatabase() -> (TinyvexDatabase, cleanup: @Sendable () -> Void) {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("tinyvex-\(UUID().uuidString).sqlite").path
    return (.file(path), {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    })
}
