import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The system's `connect`, which the static method below would hide.
private func systemConnect(_ descriptor: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
    connect(descriptor, address, length)
}

/// A plain TCP connection to 127.0.0.1 for byte-level HTTP tests: blocking writes and reads
/// with a receive timeout, run off the cooperative pool.
final class RawSocket: Sendable {
    struct Failed: Error { var what: String }

    private let descriptor: Int32

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Connects to `port` on 127.0.0.1.
    static func connect(port: Int) throws -> RawSocket {
        #if canImport(Darwin)
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #else
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard descriptor >= 0 else { throw Failed(what: "socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                systemConnect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            close(descriptor)
            throw Failed(what: "connect")
        }
        var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return RawSocket(descriptor: descriptor)
    }

    /// Writes `text` whole; `false` once the peer has closed.
    @discardableResult
    func write(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    /// Everything read until the peer closes, within `limit`; throws when it is still open then.
    func readUntilClosed(within limit: Duration) async throws -> String {
        let descriptor = self.descriptor
        let deadline = ContinuousClock.now + limit
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while ContinuousClock.now < deadline {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count == 0 { return String(decoding: received, as: UTF8.self) }
            if count > 0 {
                received += buffer[..<count]
            } else if errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR {
                return String(decoding: received, as: UTF8.self)
            }
            await Task.yield()
        }
        throw Failed(what: "still open after \(limit), having read \(String(decoding: received, as: UTF8.self))")
    }

    deinit {
        close(descriptor)
    }
}
