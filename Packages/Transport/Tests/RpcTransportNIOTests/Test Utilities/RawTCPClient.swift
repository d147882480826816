import NIOCore
import NIOPosix
import Synchronization
import RpcTesting

/// A TCP client that writes exactly the bytes a test gives it and records what comes back, for
/// feeding a server malformed input.
final class RawTCPClient: Sendable {
    private final class Recorder: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let bytes = Mutex<[UInt8]>([])

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let buffer = unwrapInboundIn(data)
            bytes.withLock { $0.append(contentsOf: buffer.readableBytesView) }
        }
    }

    private let channel: any Channel
    private let recorder: Recorder

    private init(channel: any Channel, recorder: Recorder) {
        self.channel = channel
        self.recorder = recorder
    }

    /// Connects to a port on the loopback interface.
    static func connect(port: Int) async throws -> RawTCPClient {
        let recorder = Recorder()
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(5))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(recorder)
                }
            }
            .connect(host: "127.0.0.1", port: port)
            .get()
        return RawTCPClient(channel: channel, recorder: recorder)
    }

    /// Writes bytes.
    func write(_ bytes: [UInt8]) async throws {
        try await channel.writeAndFlush(channel.allocator.buffer(bytes: bytes)).get()
    }

    /// Writes the UTF-8 bytes of a string.
    func write(_ text: String) async throws {
        try await write(Array(text.utf8))
    }

    /// Everything received so far.
    var received: [UInt8] {
        recorder.bytes.withLock { $0 }
    }

    /// Whether the connection is still open.
    var isOpen: Bool { channel.isActive }

    /// Waits until the received bytes satisfy `condition`.
    func waitForBytes(within limit: Duration = .seconds(10), until condition: ([UInt8]) -> Bool) async throws -> [UInt8] {
        try await waitUntil("the expected bytes", timeout: limit) { condition(received) }
        return received
    }

    /// Waits until the server closes the connection.
    func waitUntilClosed(within limit: Duration = .seconds(10)) async throws {
        try await waitUntil("the server closing the connection", timeout: limit) { !channel.isActive }
    }

    /// Closes the connection.
    func close() async {
        try? await channel.close()
    }

    // MARK: HTTP and WebSocket helpers

    /// The index just past the first `\r\n\r\n` in `bytes`.
    static func endOfHead(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0 ... bytes.count - 4
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index + 4
        }
        return nil
    }

    /// Waits for a complete HTTP response head and returns it as text.
    func responseHead(within limit: Duration = .seconds(10)) async throws -> String {
        let bytes = try await waitForBytes(within: limit) { Self.endOfHead($0) != nil }
        let end = Self.endOfHead(bytes) ?? bytes.count
        return String(decoding: bytes[..<end], as: UTF8.self)
    }

    /// Performs a WebSocket opening handshake with a fixed key; returns the response head.
    @discardableResult
    func upgrade(path: String = "/", extraHeaders: [String] = []) async throws -> String {
        var request = "GET \(path) HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        request += "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        for header in extraHeaders {
            request += header + "\r\n"
        }
        request += "\r\n"
        try await write(request)
        return try await responseHead()
    }

    /// The frames received after the HTTP response head.
    var framesAfterHead: [TestFrame] {
        let bytes = received
        guard let start = Self.endOfHead(bytes) else { return [] }
        return TestFrame.parse(Array(bytes[start...]))
    }

    /// Waits for a close frame after the handshake and returns its code.
    func closeCode(within limit: Duration = .seconds(10)) async throws -> UInt16? {
        try await waitUntil("a close frame", timeout: limit) {
            framesAfterHead.contains { $0.opcode == 0x8 }
        }
        return framesAfterHead.first { $0.opcode == 0x8 }?.closeCode
    }
}
