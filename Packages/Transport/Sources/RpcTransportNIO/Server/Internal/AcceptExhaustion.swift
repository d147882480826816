import Logging
import NIOCore
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Decides what the server's accept loop does after an accept failed: back off for the
/// configured time when descriptors or socket buffers ran out (the failure would repeat at once
/// and spin a core), go on otherwise. The first exhaustion is logged as a warning; later ones
/// only at debug level, so a long episode does not flood the log.
final class AcceptExhaustion: Sendable {
    private let backoff: Duration
    private let logger: Logger
    private let warned = Atomic<Bool>(false)

    init(backoff: Duration, logger: Logger) {
        self.backoff = backoff
        self.logger = logger
    }

    /// Whether `errno` says a resource ran out rather than that one connection failed.
    static func isExhaustion(_ errno: CInt) -> Bool {
        errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM
    }

    /// The pause before accepting again after `error`, or `nil` to go on at once.
    func delay(after error: IOError) -> TimeAmount? {
        guard Self.isExhaustion(error.errnoCode) else { return nil }
        if !warned.exchange(true, ordering: .relaxed) {
            logger.warning(
                "accepting connections failed: out of file descriptors or socket buffers; pausing accepts",
                metadata: ["error": "\(error)", "pause": "\(backoff)"])
        } else {
            logger.debug("accepting connections still failing; pausing accepts", metadata: ["error": "\(error)"])
        }
        return TimeAmount(backoff)
    }
}

/// Pauses a server channel's accepting while ``AcceptExhaustion`` says to: on such a failure it
/// turns the channel's automatic reads off, which takes the listening socket out of the event
/// loop's watch list, and turns them back on once the pause is over.
///
/// (A handler that only withholds the next `read` is not enough: when the first accept of a
/// read fails, the channel still counts a read as pending and keeps the socket watched, so the
/// loop is woken at once, again and again.)
final class AcceptPauseHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = any Channel

    private let exhaustion: AcceptExhaustion
    private var resume: Scheduled<Void>?

    init(_ exhaustion: AcceptExhaustion) {
        self.exhaustion = exhaustion
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let ioError = error as? IOError, let delay = exhaustion.delay(after: ioError) else {
            context.fireErrorCaught(error)
            return
        }
        guard resume == nil else { return }
        let channel = context.channel
        do {
            try channel.syncOptions?.setOption(.autoRead, value: false)
        } catch {
            context.fireErrorCaught(error)
            return
        }
        resume = context.eventLoop.assumeIsolated().scheduleTask(in: delay) { [self] in
            resume = nil
            try? channel.syncOptions?.setOption(.autoRead, value: true)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        resume?.cancel()
        resume = nil
        context.fireChannelInactive()
    }
}
