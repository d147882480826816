import NIOCore
import NIOHTTP1
import RpcTransport

/// One HTTP/1.1 connection of a batch client, carrying one request at a time.
final class HTTPBatchConnection: Sendable {
    let channel: any Channel
    private let handler: NIOLoopBound<HTTPBatchClientHandler>

    private init(channel: any Channel, handler: NIOLoopBound<HTTPBatchClientHandler>) {
        self.channel = channel
        self.handler = handler
    }

    /// Whether the connection can carry another request.
    var isActive: Bool { channel.isActive }

    /// Opens a connection.
    static func connect(
        to target: TransportTarget,
        eventLoop: any EventLoop,
        configuration: HTTPBatchClientConfiguration,
        tls: (any TLSClientProvider)?
    ) async throws(TransportError) -> HTTPBatchConnection {
        let maxBody = configuration.maxResponseBodySize
        let channel = try await ClientConnector.connect(
            to: target,
            eventLoop: eventLoop,
            connectTimeout: configuration.connectTimeout,
            tls: tls,
            serverHostname: target.host
        ) { channel in
            try channel.pipeline.syncOperations.addHTTPClientHandlers()
            try channel.pipeline.syncOperations.addHandler(HTTPBatchClientHandler(maxBodySize: maxBody))
        }
        let handler: NIOLoopBound<HTTPBatchClientHandler>
        do {
            handler = try await channel.eventLoop.submit {
                let found = try channel.pipeline.syncOperations.handler(type: HTTPBatchClientHandler.self)
                return NIOLoopBound(found, eventLoop: channel.eventLoop)
            }.get()
        } catch {
            channel.close(promise: nil)
            throw TransportError(code: .connectFailed, message: "could not set up the connection: \(error)", cause: error)
        }
        return HTTPBatchConnection(channel: channel, handler: handler)
    }

    /// Sends one request and waits for its whole response.
    func execute(head: HTTPRequestHead, body: ByteBuffer, timeout: Duration) async throws(TransportError)
        -> HTTPBatchResponse
    {
        let promise = channel.eventLoop.makePromise(of: HTTPBatchResponse.self)
        let handler = self.handler
        let amount = TimeAmount(timeout)
        channel.eventLoop.execute {
            handler.value.execute(head: head, body: body, timeout: amount, promise: promise)
        }
        do {
            return try await withTaskCancellationHandler {
                try await promise.futureResult.get()
            } onCancel: {
                channel.close(promise: nil)
            }
        } catch let error as TransportError {
            if Task.isCancelled {
                throw TransportError(code: .cancelled, message: "the request was cancelled", cause: error)
            }
            throw error
        } catch {
            throw TransportError(code: .ioError, message: "the request failed: \(error)", cause: error)
        }
    }

    /// Closes the connection.
    func close() {
        channel.close(promise: nil)
    }
}
