import RpcTesting
import RpcTransport
import RpcTransportNIO
import Testing

/// Lengths and sizes at the edges of their integer types, from a peer: each gets a typed error,
/// a close code or an HTTP status, never a trap, whatever the limits are configured to.
@Suite("Extreme integers from the wire")
struct IntegerExtremesTests {
    /// A server whose frame and message limits are `Int.max` ("no limit"): sums with them must
    /// saturate, not overflow.
    private static func unlimitedConfiguration() -> TransportServerConfiguration {
        var configuration = EchoServer.configuration()
        configuration.maxFrameSize = .max
        configuration.maxMessageSize = .max
        configuration.frameReadTimeout = .milliseconds(300)
        return configuration
    }

    @Test("a server configured without frame and message limits starts and serves")
    func unlimitedServerStarts() async throws {
        try await EchoServer.run(configuration: Self.unlimitedConfiguration()) { server, _ in
            try await MalformedInputTests.expectHealthy(server)
        }
    }

    @Test(
        "a frame header announcing 2^63 - 1 bytes to a server without a frame limit waits for the bytes and times out with 1008",
        arguments: [UInt64(Int64.max), UInt64(Int64.max) - 13, 1 << 62]
    )
    func hugeLengthWithoutLimit(length: UInt64) async throws {
        try await EchoServer.run(configuration: Self.unlimitedConfiguration()) { server, observations in
            let raw = try await RawTCPClient.connect(port: server.port ?? 0)
            _ = try await raw.upgrade()
            try await raw.write(TestFrame.encode(opcode: 0x2, payload: Array(repeating: 7, count: 20), declaredLength: length))
            #expect(try await raw.closeCode() == 1008)
            try await raw.waitUntilClosed()
            let closure = try await observations.closures(count: 1)[0]
            #expect(closure.error?.code == .readTimeout)
            try await MalformedInputTests.expectHealthy(server)
        }
    }

    @Test(
        "extreme frame lengths against the default limits get 1009, or 1002 for a length with its top bit set",
        arguments: [
            (UInt64(Int64.max), UInt16(1009)), (UInt64.max, UInt16(1002)), (UInt64(1) << 63, UInt16(1002)),
            (UInt64(UInt32.max) + 1, UInt16(1009)),
        ]
    )
    func extremeLengths(length: UInt64, expectedCode: UInt16) async throws {
        try await EchoServer.run { server, _ in
            let raw = try await RawTCPClient.connect(port: server.port ?? 0)
            _ = try await raw.upgrade()
            try await raw.write(TestFrame.encode(opcode: 0x1, payload: [], declaredLength: length))
            #expect(try await raw.closeCode() == expectedCode)
            try await raw.waitUntilClosed()
            try await MalformedInputTests.expectHealthy(server)
        }
    }

    @Test(
        "a Content-Length too large for any integer is refused with 413 before the body, on batch and routed servers",
        arguments: ["99999999999999999999999999", "18446744073709551616", "9223372036854775808", "9223372036854775807"]
    )
    func hugeContentLength(value: String) async throws {
        try await EchoServer.run { server, observations in
            let raw = try await RawTCPClient.connect(port: server.port ?? 0)
            try await raw.write("POST /rpc HTTP/1.1\r\nHost: localhost\r\nContent-Length: \(value)\r\n\r\nabc")
            let head = try await raw.responseHead()
            // The parser may refuse the value itself (400); otherwise the limit does (413).
            #expect(head.hasPrefix("HTTP/1.1 413") || head.hasPrefix("HTTP/1.1 400"), "\(head)")
            #expect(observations.batches.isEmpty)
            await raw.close()
        }
        try await HTTPRoutingTests.run { server, seen in
            let raw = try await RawTCPClient.connect(port: server.port ?? 0)
            try await raw.write("PUT /x HTTP/1.1\r\nHost: localhost\r\nContent-Length: \(value)\r\n\r\nabc")
            let head = try await raw.responseHead()
            #expect(head.hasPrefix("HTTP/1.1 413") || head.hasPrefix("HTTP/1.1 400"), "\(head)")
            #expect(seen.all.isEmpty)
            await raw.close()
        }
    }

    @Test("a negative or malformed Content-Length is refused with 400", arguments: ["-1", "-9223372036854775808", "1e9", "0x10"])
    func malformedContentLength(value: String) async throws {
        try await EchoServer.run { server, observations in
            let raw = try await RawTCPClient.connect(port: server.port ?? 0)
            try await raw.write("POST /rpc HTTP/1.1\r\nHost: localhost\r\nContent-Length: \(value)\r\n\r\nabc")
            #expect(try await raw.responseHead().hasPrefix("HTTP/1.1 400"))
            try await raw.waitUntilClosed()
            #expect(observations.batches.isEmpty)
        }
    }

    @Test(
        "a chunk size past 64 bits is refused with 400, and one of 2^63 - 1 is cut by the body limit with 413",
        arguments: [("fffffffffffffffffffff", "400"), ("7fffffffffffffff", "413"), ("ffffffffffffffff", "413")]
    )
    func extremeChunkSizes(size: String, expectedStatus: String) async throws {
        var configuration = EchoServer.configuration()
        configuration.maxBatchBodySize = 1000
        try await EchoServer.run(configuration: configuration) { server, observations in
            let raw = try await RawTCPClient.connect(port: server.port ?? 0)
            try await raw.write("POST /rpc HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n\(size)\r\n")
            // A server that refuses the chunk size at once may have closed before this write: the
            // answer it sent first is what the test reads.
            try? await raw.write(Array(repeating: UInt8(ascii: "a"), count: 2000))
            let head = try await raw.responseHead()
            #expect(head.hasPrefix("HTTP/1.1 \(expectedStatus)") || head.hasPrefix("HTTP/1.1 400"), "\(head)")
            #expect(observations.batches.isEmpty)
            await raw.close()
        }
    }
}
