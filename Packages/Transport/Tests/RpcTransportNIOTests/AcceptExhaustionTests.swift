import Logging
import NIOCore
import Synchronization
import Testing
@testable import RpcTransportNIO

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Collects the levels of what is logged.
final class LevelRecorder: LogHandler, @unchecked Sendable {
    // `@unchecked`: the only mutable state is behind the mutex; the protocol's settable
    // properties are kept for the protocol only.
    let levels = Mutex<[Logger.Level]>([])
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        levels.withLock { $0.append(event.level) }
    }
}

@Suite("Accepting when descriptors run out")
struct AcceptExhaustionTests {
    @Test("running out of descriptors or socket buffers pauses accepting for the configured time, warning once")
    func exhaustionPauses() {
        let recorder = LevelRecorder()
        let logger = Logger(label: "test") { _ in recorder }
        let exhaustion = AcceptExhaustion(backoff: .milliseconds(250), logger: logger)
        for code in [EMFILE, ENFILE, ENOBUFS, ENOMEM, EMFILE] {
            #expect(exhaustion.delay(after: IOError(errnoCode: code, reason: "accept")) == .milliseconds(250))
        }
        #expect(recorder.levels.withLock { $0 } == [.warning, .debug, .debug, .debug, .debug])
    }

    @Test("a failure of one connection does not pause accepting")
    func otherFailuresGoOn() {
        let exhaustion = AcceptExhaustion(backoff: .seconds(1), logger: Logger(label: "test"))
        for code in [ECONNABORTED, EPROTO, EPERM] {
            #expect(exhaustion.delay(after: IOError(errnoCode: code, reason: "accept")) == nil)
        }
    }
}
