import NIOCore
import Synchronization
import Vapor
import RpcTransport

/// Reads a Vapor request's body whole, whichever way Vapor holds it (none, collected or
/// streamed), refusing it once it passes a limit: the bytes past the limit are never kept.
final class BodyCollector: Sendable {
    private struct State {
        var bytes: [UInt8] = []
        var continuation: CheckedContinuation<[UInt8], any Error>?
        var finished = false
    }

    private let limit: Int
    private let state = Mutex(State())

    private init(limit: Int) {
        self.limit = limit
    }

    /// The whole body of `request`.
    ///
    /// - Throws: ``RpcTransport/TransportError`` with code `requestTooLarge` (status 413) past
    ///   `limit` bytes, or `ioError` when the body could not be read.
    static func collect(_ request: Request, limit: Int) async throws(TransportError) -> [UInt8] {
        if let declared = request.headers.first(name: .contentLength).flatMap({ Int($0) }), declared > limit {
            throw tooLarge(limit)
        }
        let collector = BodyCollector(limit: limit)
        do {
            return try await withCheckedThrowingContinuation { continuation in
                collector.state.withLock { $0.continuation = continuation }
                let eventLoop = request.eventLoop
                request.body.drain { part in
                    collector.receive(part) ? eventLoop.makeSucceededVoidFuture() : eventLoop.makeFailedFuture(tooLarge(limit))
                }
            }
        } catch let error as TransportError {
            throw error
        } catch {
            throw TransportError(code: .ioError, message: "the request body could not be read: \(error)", cause: error)
        }
    }

    /// Takes one part of the body; `false` once the body is refused or over.
    private func receive(_ part: BodyStreamResult) -> Bool {
        let (continuation, outcome, accepted) = state.withLock {
            state -> (CheckedContinuation<[UInt8], any Error>?, Result<[UInt8], any Error>?, Bool) in
            guard !state.finished else { return (nil, nil, false) }
            switch part {
            case .buffer(let buffer):
                guard buffer.readableBytes <= limit - state.bytes.count else {
                    state.finished = true
                    state.bytes = []
                    defer { state.continuation = nil }
                    return (state.continuation, .failure(Self.tooLarge(limit)), false)
                }
                state.bytes.append(contentsOf: buffer.readableBytesView)
                return (nil, nil, true)
            case .error(let error):
                state.finished = true
                defer { state.continuation = nil }
                return (state.continuation, .failure(error), false)
            case .end:
                state.finished = true
                let bytes = state.bytes
                state.bytes = []
                defer { state.continuation = nil }
                return (state.continuation, .success(bytes), true)
            }
        }
        if let continuation, let outcome {
            continuation.resume(with: outcome)
        }
        return accepted
    }

    private static func tooLarge(_ limit: Int) -> TransportError {
        TransportError(
            code: .requestTooLarge, message: "the request body is larger than \(limit) bytes", httpStatus: 413)
    }
}
