import LoopbackSupport
import RpcTransport
import RpcTransportNIO
import Synchronization

/// Drives an echo server through our `WebSocketClient`: every message after the first of a
/// measurement is sent with `enqueue` from the `start` handler, on the connection's event loop.
final class OurClientDriver: EchoDriver {
    private struct State {
        var progress = EchoProgress()
        var completion: CheckedContinuation<Void, any Error>?
    }

    private let transport: WebSocketTransport
    private let message: TransportMessage
    private let state = Mutex(State())

    private init(transport: WebSocketTransport, message: TransportMessage) {
        self.transport = transport
        self.message = message
    }

    /// Connects and installs the handler.
    static func connect(
        port: Int,
        message: [UInt8],
        deflate: PerMessageDeflateConfiguration?,
        tls: TLSClientConfiguration?
    ) async throws -> OurClientDriver {
        var configuration = WebSocketClientConfiguration()
        configuration.deflate = deflate
        configuration.tls = tls
        let scheme = tls == nil ? "ws" : "wss"
        let transport = try await WebSocketClient.connect(
            to: "\(scheme)://127.0.0.1:\(port)/", configuration: configuration)
        if deflate != nil, !transport.isCompressionEnabled {
            throw BenchmarkFailure("permessage-deflate was not agreed")
        }
        let driver = OurClientDriver(transport: transport, message: .text(utf8: message))
        transport.start { event in
            driver.handle(event)
        }
        return driver
    }

    private func handle(_ event: TransportEvent) {
        let now = ContinuousClock.now
        switch event {
        case .message:
            let (step, completion) = state.withLock { state -> (EchoProgress.Step, CheckedContinuation<Void, any Error>?) in
                let step = state.progress.echoArrived(at: now)
                guard step == .finished else { return (step, nil) }
                defer { state.completion = nil }
                return (step, state.completion)
            }
            switch step {
            case .send:
                do {
                    try transport.enqueue(message)
                } catch {
                    fail(error)
                }
            case .finished:
                completion?.resume()
            case .wait:
                break
            }
        case .closed(let closure):
            fail(BenchmarkFailure("the connection closed during the measurement: \(closure)"))
        }
    }

    private func fail(_ error: any Error) {
        let completion = state.withLock { state in
            defer { state.completion = nil }
            return state.completion
        }
        completion?.resume(throwing: error)
    }

    func sequential(count: Int) async throws -> [Int64] {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            state.withLock { state in
                state.completion = continuation
                state.progress.beginSequential(count: count)
            }
            do {
                try transport.enqueue(message)
            } catch {
                fail(error)
            }
        }
        return state.withLock { $0.progress.samples }
    }

    func pipelined(total: Int, window: Int) async throws -> Duration {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            state.withLock { state in
                state.completion = continuation
                state.progress.beginPipelined(total: total, window: window)
            }
            do {
                for _ in 0 ..< window {
                    try transport.enqueue(message)
                }
            } catch {
                fail(error)
            }
        }
        return state.withLock { $0.progress.finishedAt - $0.progress.startedAt }
    }

    func close() async {
        await transport.close()
    }
}
