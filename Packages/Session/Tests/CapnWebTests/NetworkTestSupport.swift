import Synchronization
import CapnWeb
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The main object of the network tests: arithmetic and counters.
final class NetTarget: RpcTarget {
    func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
        switch method {
        case "square":
            let n = try arguments.decode(0, as: Double.self)
            return .double(n * n)
        case "add":
            return .integer(Int64(try arguments.decode(0, as: Int.self) + arguments.decode(1, as: Int.self)))
        case "makeCounter":
            return .stub(RpcStub(NetCounter(value: try arguments.decode(0, default: 0))))
        default:
            throw RpcErrorValue.notAFunction(method)
        }
    }
}

/// A counter handed out by ``NetTarget``.
final class NetCounter: RpcTarget {
    private let value: Mutex<Int>
    init(value: Int) { self.value = Mutex(value) }

    func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
        guard method == "increment" else { throw RpcErrorValue.notAFunction(method) }
        let by = try arguments.decode(0, default: 1)
        return .integer(Int64(value.withLock { $0 += by; return $0 }))
    }

    func property(_ name: String) async throws -> RpcPayload {
        name == "value" ? .integer(Int64(value.withLock { $0 })) : .undefined
    }
}

/// A blocking TCP socket connected to 127.0.0.1:`port`.
func connectedSocket(port: Int) throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw RawHTTPError(reason: "socket failed") }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    guard connected == 0 else {
        close(fd)
        throw RawHTTPError(reason: "connect failed")
    }
    return fd
}

/// Sends one raw HTTP/1.1 request to 127.0.0.1:`port` and returns the status code and body.
func rawHTTP(port: Int, method: String, path: String, body: String = "") throws -> (status: Int, body: String) {
    let fd = try connectedSocket(port: port)
    defer { close(fd) }
    var timeout = timeval(tv_sec: 5, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    let request =
        "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
    let bytes = Array(request.utf8)
    var sent = 0
    while sent < bytes.count {
        let n = bytes[sent...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard n > 0 else { throw RawHTTPError(reason: "write failed") }
        sent += n
    }
    var response: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n <= 0 { break }
        response += buffer[0..<n]
    }
    let text = String(decoding: response, as: UTF8.self)
    let statusLine = text.split(separator: "\r\n", maxSplits: 1).first ?? ""
    let parts = statusLine.split(separator: " ")
    let status = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
    let responseBody = text.firstRange(of: "\r\n\r\n").map { String(text[$0.upperBound...]) } ?? ""
    return (status, responseBody)
}

struct RawHTTPError: Error {
    let reason: String
}
