import NIOCore
import NIOHTTP1

/// Keeps NIO's HTTP protocol error handler from answering a malformed or cut-off request once
/// the server is shutting down: the connection is closed instead.
///
/// On shutdown every HTTP connection is told to quiesce; one with part of a head read closes at
/// once, the decoder then reports the unfinished head as a parser error, and a 400 written in
/// answer would reach NIO's pipeline handler after it finished (a debug build traps there).
/// Placed between that pipeline handler and the error handler; otherwise parser errors pass on
/// unchanged, and the error handler answers them with 400. Runs on the connection's event loop.
final class ShutdownParseErrorFilter: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    private let core: ServerCore

    init(core: ServerCore) {
        self.core = core
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard error is HTTPParserError, core.registry.isShuttingDown else {
            context.fireErrorCaught(error)
            return
        }
        context.close(promise: nil)
    }
}
