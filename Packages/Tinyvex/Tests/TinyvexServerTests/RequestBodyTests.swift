#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Testing
import TinyvexServer

/// A plain TCP connection to 127.0.0.1, for what no WebSocket client sends.
private final class TCPSocket {
    let descriptor: Int32

    init(port: Int) throws {
        #if canImport(Glibc)
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw POSIXError(.EBADF) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(clamping: port)).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(descriptor)
            throw POSIXError(.ECONNREFUSED)
        }
    }

    /// Writes `text`; `false` once the server has closed the connection.
    func write(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        #if canImport(Glibc)
        let flags = Int32(MSG_NOSIGNAL)
        #else
        let flags: Int32 = 0
        #endif
        return bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, flags) } == bytes.count
    }

    /// Whether the server has closed its side (a read returns end of file or an error), without waiting.
    func closedByServer() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if count == 0 { return true }
            if count < 0 { return errno != EAGAIN && errno != EWOULDBLOCK }
        }
    }

    deinit { close(descriptor) }
}

@Suite("Tinyvex hardening: HTTP requests are read within requestReadTimeout", .timeLimit(.minutes(1)))
struct RequestBodyTests {
    @Test("a request whose chunked body drips a byte at a time is cut after requestReadTimeout")
    func drippingBody() async throws {
        try await withDemoServer(configuration: TinyvexServerConfiguration(requestReadTimeout: .milliseconds(500))) { server in
            let socket = try TCPSocket(port: try #require(server.port))
            #expect(socket.write("POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n"))
            let started = ContinuousClock.now
            var cut = false
            while ContinuousClock.now - started < .seconds(10) {
                try await Task.sleep(for: .milliseconds(100))
                if socket.closedByServer() || !socket.write("1\r\nx\r\n") {
                    cut = true
                    break
                }
            }
            #expect(cut)
            #expect(ContinuousClock.now - started < .seconds(5))
        }
    }
}
