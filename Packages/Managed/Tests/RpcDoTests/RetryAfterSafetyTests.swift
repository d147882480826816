import CapnWeb
import Foundation
@testable import RpcDo
import Testing

/// Seconds from a peer (`retryAfter`) or from a configuration become durations without
/// trapping: `Duration.seconds(_:)` with a `Double` traps beyond about 1.7e20 s.
@Suite("retryAfter hints and configured seconds never trap")
struct RetryAfterSafetyTests {
    @Test(
        "a rate limit asking to wait 1e300 seconds is retried after maxRetryDelay and the call succeeds",
        arguments: [RpcPayload.double(1e300), .string("1e300"), .integer(Int64.max)])
    func hugeRetryAfterFromThePeer(retryAfter: RpcPayload) async throws {
        let server = InMemoryServer()
        let client = RpcClient(configuration: InMemoryServer.configuration(maxRetries: 1), transportFactory: server.factory)
        try await client.connect()
        server.service.rateLimitNext(1, retryAfter: retryAfter)
        let value: String = try await client.api.limited()
        #expect(value == "ok")
        #expect(server.service.calls("limited") == 2)
        await client.disconnect()
    }

    @Test("a retryAfter that is negative, not finite or not a number is no hint; a huge one is capped")
    func retryAfterHints() {
        func hint(_ payload: RpcPayload) -> Double? {
            ErrorMapping.retryAfter(
                in: RpcErrorValue(name: "RateLimitExceeded", message: "slow down", properties: [.init("retryAfter", payload)]))
        }
        #expect(hint(.integer(-1)) == nil)
        #expect(hint(.integer(Int64.min)) == nil)
        #expect(hint(.double(-0.5)) == nil)
        #expect(hint(.string("nan")) == nil)
        #expect(hint(.string("inf")) == nil)
        #expect(hint(.string("-1e300")) == nil)
        #expect(hint(.string("soon")) == nil)
        #expect(hint(.string("1.5")) == 1.5)
        #expect(hint(.integer(Int64.max)) == Double(Int64.max))

        #expect(ClientCore.retryAfter(.rateLimitExceeded(retryAfter: 1e300)) == .seconds(ClampedSeconds.limit))
        #expect(ClientCore.retryAfter(.rateLimitExceeded(retryAfter: .greatestFiniteMagnitude)) == .seconds(ClampedSeconds.limit))
        #expect(ClientCore.retryAfter(.rateLimitExceeded(retryAfter: .nan)) == nil)
        #expect(ClientCore.retryAfter(.rateLimitExceeded(retryAfter: .infinity)) == nil)
        #expect(ClientCore.retryAfter(.rateLimitExceeded(retryAfter: -1)) == nil)

        let loop = RetryLoop(maxRetries: 1, backoff: .exponential(base: .milliseconds(10), max: .seconds(1)), maxRetryDelay: .seconds(5))
        #expect(loop.delay(retry: 1, hint: ClientCore.retryAfter(.rateLimitExceeded(retryAfter: 1e300))) == .seconds(5))
    }

    @Test("configured seconds too large for a Duration are clamped; non-finite or non-positive ones take the default")
    func configuredSeconds() async {
        #expect(RpcClientConfiguration.duration(1e300, default: 30) == .seconds(ClampedSeconds.limit))
        #expect(RpcClientConfiguration.duration(.infinity, default: 30) == .seconds(30))
        #expect(RpcClientConfiguration.duration(.nan, default: 30) == .seconds(30))
        #expect(RpcClientConfiguration.duration(-1, default: 30) == .seconds(30))

        var configuration = InMemoryServer.configuration()
        configuration.timeout = 1e300
        configuration.retryBaseDelay = 1e300
        configuration.maxRetryDelay = 1e300
        configuration.connectTimeout = 1e300
        configuration.keepaliveInterval = 1e300
        configuration.keepaliveTimeout = 1e300
        configuration.reconnect = nil
        let client = RpcClient(configuration: configuration, transportFactory: InMemoryServer().factory)
        #expect(client.core.settings.requestTimeout == .seconds(ClampedSeconds.limit))
        #expect(client.core.settings.maxRetryDelay == .seconds(ClampedSeconds.limit))
        await client.disconnect()
    }
}
