import NIOCore
import RpcTesting
import Synchronization
import Testing
@testable import RpcTransportNIO

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A WebSocket client on a non-blocking POSIX socket that upgrades, sends masked frames, and
/// never reads a byte after the upgrade's answer.
final class NonReadingClient: @unchecked Sendable {
    // `@unchecked`: its one stored property is a descriptor, used from one thread at a time.
    private let fd: Int32

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TransportError(code: .ioError, message: "socket failed") }
        // Small kernel buffers on this side, so that what the kernel holds for it is far below
        // what the test sends, whatever the system's buffer sizes.
        var size: Int32 = 32 * 1024
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw TransportError(code: .ioError, message: "connect failed") }
        let upgrade =
            "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        _ = try send(Array(upgrade.utf8))
        try readUpgradeAnswer()
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }

    /// Reads the server's answer to the upgrade, up to the end of its head (the only bytes this
    /// client ever reads), so that frames are sent once the connection is a WebSocket.
    private func readUpgradeAnswer() throws {
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var head: [UInt8] = []
        var byte: UInt8 = 0
        while !head.suffix(4).elementsEqual([13, 10, 13, 10]) {
            guard recv(fd, &byte, 1, 0) == 1 else {
                throw TransportError(code: .ioError, message: "no answer to the upgrade")
            }
            head.append(byte)
        }
        guard String(decoding: head, as: UTF8.self).hasPrefix("HTTP/1.1 101") else {
            throw TransportError(code: .ioError, message: "upgrade refused: \(String(decoding: head, as: UTF8.self))")
        }
    }

    deinit {
        close(fd)
    }

    /// Sends all of `bytes`, waiting while the kernel's buffers are full: `false` when they
    /// stayed full for `stall` (the server stopped reading).
    func send(_ bytes: [UInt8], stall: Duration = .seconds(2)) throws -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { raw in
                #if canImport(Glibc)
                Glibc.send(fd, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL))
                #else
                Darwin.send(fd, raw.baseAddress, raw.count, 0)
                #endif
            }
            if sent >= 0 {
                offset += sent
                continue
            }
            guard errno == EAGAIN || errno == EWOULDBLOCK else {
                throw TransportError(code: .ioError, message: "send failed: \(errno)")
            }
            var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            // Whole milliseconds of the stall, sub-second parts included (a stall of 100 ms
            // must not poll for 0 ms and give up on a frame it has half sent).
            let (seconds, attoseconds) = stall.components
            let milliseconds = Int32(clamping: seconds.multipliedReportingOverflow(by: 1000).partialValue + attoseconds / 1_000_000_000_000_000)
            if poll(&entry, 1, milliseconds) <= 0 { return false }
        }
        return true
    }
}

@Suite("Peers that do not read")
struct NonReadingPeerTests {
    /// A server with small outbound limits whose connections answer each message `copies`
    /// times, recording the messages each received and how it closed.
    private static func withServer(
        copies: Int,
        maxPendingOutboundBytes: Int,
        _ body: (Int, Recorder<Int>, Recorder<TransportClosure>) async throws -> Void
    ) async throws {
        var configuration = EchoServer.configuration()
        configuration.maxMessageSize = 64 * 1024
        configuration.outboundBufferLimit = 64 * 1024
        configuration.maxPendingOutboundBytes = maxPendingOutboundBytes
        configuration.keepalive = nil
        let received = Recorder<Int>()
        let closures = Recorder<TransportClosure>()
        try await withTransportServer(configuration: configuration, onConnection: { transport, _ in
            transport.start { event in
                switch event {
                case .message(let message):
                    received.append(message.bytes.count)
                    for _ in 0..<copies { try? transport.enqueue(message) }
                case .closed(let closure):
                    closures.append(closure)
                }
            }
            _ = await transport.waitUntilClosed()
        }) { server in
            try await body(server.port ?? 0, received, closures)
        }
    }

    @Test("a server stops reading a client that does not read its answers, and goes on answering others")
    func nonReaderIsPaused() async throws {
        try await Self.withServer(copies: 1, maxPendingOutboundBytes: 1 << 30) { port, received, closures in
            let frame = TestFrame.encode(opcode: 0x2, payload: [UInt8](repeating: 1, count: 60 * 1024))
            // The blocking client runs on a thread of its own, off the pool the server's tasks
            // need.
            let (stalled, sent) = try await onOwnThread { () -> (NonReadingClient, Int) in
                let client = try NonReadingClient(port: port)
                var sent = 0
                while sent < 1000, try client.send(frame) { sent += 1 }
                return (client, sent)
            }
            // The client could not get 1000 frames (60 MB) out: the server stopped reading them
            // (a server that read on would have taken them all, holding their answers).
            #expect(sent < 1000, "the server read \(received.count) of \(sent) frames")
            #expect(received.count <= sent)
            // Another client is answered meanwhile.
            let other = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(port)/")
            let recorder = EventRecorder(other)
            try await other.send(.text("still here"))
            #expect(try await recorder.nextMessage() == .text("still here"))
            await other.close()
            #expect(closures.all.allSatisfy { $0.error?.code != .peerNotReading })
            withExtendedLifetime(stalled) {}
        }
    }

    @Test("a connection whose pending answers pass the hard limit is aborted with peerNotReading")
    func nonReaderIsAbortedAtTheLimit() async throws {
        try await Self.withServer(copies: 64, maxPendingOutboundBytes: 512 * 1024) { port, _, closures in
            let frame = TestFrame.encode(opcode: 0x2, payload: [UInt8](repeating: 1, count: 60 * 1024))
            let stalled = try await onOwnThread { () -> NonReadingClient in
                let client = try NonReadingClient(port: port)
                // A frame the server stopped reading halfway is the last: another after it
                // would start in the middle of that frame's bytes. A send the server's abort
                // resets ends the sending too. Each frame may wait the default stall, so a
                // loaded server still reads the first one whole (its answers alone pass the
                // limit).
                for _ in 0..<8 {
                    guard (try? client.send(frame)) == true else { break }
                }
                return client
            }
            let closure = try await waitFor("the stalled connection's end") { closures.all.first }
            #expect(closure.error?.code == .peerNotReading)
            #expect(closure.code == .policyViolation)
            withExtendedLifetime(stalled) {}
        }
    }
}
