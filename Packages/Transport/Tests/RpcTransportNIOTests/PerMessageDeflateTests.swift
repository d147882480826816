import Foundation
import NIOCore
import RpcTransport
@testable import RpcTransportNIO
import RpcTesting
import Testing

// MARK: - Codec

@Suite("Per-message deflate codec")
struct PerMessageDeflateCodecTests {
    private let allocator = ByteBufferAllocator()

    @Test(
        "payloads survive compression and decompression for every window size, with and without context takeover",
        arguments: DeflatePayload.allCases,
        DirectionSettings.all
    )
    func roundTrips(payload: DeflatePayload, settings: DirectionSettings) throws {
        let compressor = try MessageCompressor(
            windowBits: settings.windowBits,
            noContextTakeover: settings.noContextTakeover,
            level: 6
        )
        let decompressor = try MessageDecompressor(
            windowBits: settings.windowBits,
            noContextTakeover: settings.noContextTakeover,
            maximumMessageSize: 2 << 20
        )
        let message = ByteBuffer(bytes: payload.bytes)
        // Several messages in a row, so that context takeover (or its absence) is exercised.
        for _ in 0 ..< 3 {
            let compressed = try compressor.compress(message, allocator: allocator)
            let restored = try decompressor.decompress(compressed, allocator: allocator)
            #expect(restored.readableBytes == message.readableBytes)
            #expect(restored == message)
        }
    }

    @Test("repetitive data compresses to a small fraction of its size and random data does not")
    func repetitiveDataShrinks() throws {
        let compressor = try MessageCompressor(windowBits: 15, noContextTakeover: true, level: 6)
        let repetitive = try compressor.compress(ByteBuffer(bytes: DeflatePayload.repetitiveMebibyte.bytes), allocator: allocator)
        let random = try compressor.compress(ByteBuffer(bytes: DeflatePayload.randomMebibyte.bytes), allocator: allocator)
        #expect(repetitive.readableBytes < (1 << 20) / 10)
        #expect(random.readableBytes > (1 << 20) * 99 / 100)
    }

    @Test("with context takeover a repeated message shrinks, without it the output repeats exactly")
    func contextTakeoverShrinksRepeats() throws {
        let message = ByteBuffer(bytes: DeflatePayload.randomText(count: 2048, seed: 7))

        let sharing = try MessageCompressor(windowBits: 15, noContextTakeover: false, level: 6)
        let firstShared = try sharing.compress(message, allocator: allocator)
        let secondShared = try sharing.compress(message, allocator: allocator)
        #expect(secondShared.readableBytes * 10 < firstShared.readableBytes)

        let resetting = try MessageCompressor(windowBits: 15, noContextTakeover: true, level: 6)
        let firstReset = try resetting.compress(message, allocator: allocator)
        let secondReset = try resetting.compress(message, allocator: allocator)
        #expect(firstReset == secondReset)
        #expect(firstReset == firstShared)
    }

    @Test("\"Hello\" compresses to the bytes of RFC 7692 section 7.2.3.1, and again to those of 7.2.3.2")
    func rfcHelloExample() throws {
        let compressor = try MessageCompressor(windowBits: 15, noContextTakeover: false, level: 6)
        let first = try compressor.compress(ByteBuffer(string: "Hello"), allocator: allocator)
        let second = try compressor.compress(ByteBuffer(string: "Hello"), allocator: allocator)
        #expect(Array(first.readableBytesView) == [0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00])
        #expect(Array(second.readableBytesView) == [0xF2, 0x00, 0x11, 0x00, 0x00])
    }

    @Test(
        "the sample payloads of RFC 7692 section 7.2.3 decompress to \"Hello\"",
        arguments: [
            // 7.2.3.1: one compressed message.
            [[0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00]],
            // 7.2.3.1: the same message in two fragments.
            [[0xF2, 0x48, 0xCD], [0xC9, 0xC9, 0x07, 0x00]],
            // 7.2.3.3: a stored block with no compression.
            [[0x00, 0x05, 0x00, 0xFA, 0xFF, 0x48, 0x65, 0x6C, 0x6C, 0x6F, 0x00]],
            // 7.2.3.4: a block with BFINAL set.
            [[0xF3, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00, 0x00]],
            // 7.2.3.5: two blocks in one message.
            [[0xF2, 0x48, 0x05, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xCA, 0xC9, 0xC9, 0x07, 0x00]],
        ] as [[[UInt8]]]
    )
    func rfcSamplesDecompress(fragments: [[UInt8]]) throws {
        let decompressor = try MessageDecompressor(windowBits: 15, noContextTakeover: false, maximumMessageSize: 1024)
        var output = allocator.buffer(capacity: 0)
        for (index, fragment) in fragments.enumerated() {
            try decompressor.decompressFragment(
                ByteBuffer(bytes: fragment),
                isFinal: index == fragments.count - 1,
                into: &output
            )
        }
        #expect(String(buffer: output) == "Hello")
        // The decompressor is ready for the next message afterwards.
        let next = try decompressor.decompress(ByteBuffer(bytes: [0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00]), allocator: allocator)
        #expect(String(buffer: next) == "Hello")
    }

    @Test("a message referring to the previous one decompresses with context takeover (RFC 7692 section 7.2.3.2)")
    func rfcSharedWindowSample() throws {
        let decompressor = try MessageDecompressor(windowBits: 15, noContextTakeover: false, maximumMessageSize: 1024)
        let first = try decompressor.decompress(ByteBuffer(bytes: [0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00]), allocator: allocator)
        let second = try decompressor.decompress(ByteBuffer(bytes: [0xF2, 0x00, 0x11, 0x00, 0x00]), allocator: allocator)
        #expect(String(buffer: first) == "Hello")
        #expect(String(buffer: second) == "Hello")
    }

    @Test("a message referring to the previous one is corrupt when the peer promised no context takeover")
    func sharedWindowSampleFailsWithoutTakeover() throws {
        let decompressor = try MessageDecompressor(windowBits: 15, noContextTakeover: true, maximumMessageSize: 1024)
        _ = try decompressor.decompress(ByteBuffer(bytes: [0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00]), allocator: allocator)
        let error = #expect(throws: TransportError.self) {
            _ = try decompressor.decompress(ByteBuffer(bytes: [0xF2, 0x00, 0x11, 0x00, 0x00]), allocator: allocator)
        }
        #expect(error?.code == .protocolViolation)
    }

    @Test("an empty message compresses to the single byte 00 and decompresses to nothing")
    func emptyMessage() throws {
        let compressor = try MessageCompressor(windowBits: 15, noContextTakeover: false, level: 6)
        let decompressor = try MessageDecompressor(windowBits: 15, noContextTakeover: false, maximumMessageSize: 0)
        let compressed = try compressor.compress(ByteBuffer(), allocator: allocator)
        #expect(Array(compressed.readableBytesView) == [0x00])
        // Right after another message, zlib has nothing to flush; the output is still one byte.
        _ = try compressor.compress(ByteBuffer(string: "Hello"), allocator: allocator)
        let afterMessage = try compressor.compress(ByteBuffer(), allocator: allocator)
        #expect(Array(afterMessage.readableBytesView) == [0x00])
        let restored = try decompressor.decompress(compressed, allocator: allocator)
        #expect(restored.readableBytes == 0)
        let fromEmptyPayload = try decompressor.decompress(ByteBuffer(), allocator: allocator)
        #expect(fromEmptyPayload.readableBytes == 0)
    }

    @Test("a decompression bomb stops at the size limit with messageTooLarge, without a large buffer")
    func decompressionBombStopsAtLimit() throws {
        let bomb = try Self.compressedZeros(count: 100 << 20)
        #expect(bomb.readableBytes < 200 << 10)
        let limit = 1 << 20
        let decompressor = try MessageDecompressor(windowBits: 15, noContextTakeover: false, maximumMessageSize: limit)
        var output = allocator.buffer(capacity: 0)
        let error = #expect(throws: TransportError.self) {
            try decompressor.decompress(bomb, into: &output)
        }
        #expect(error?.code == .messageTooLarge)
        // Output never grew past the limit: inflation stopped there, not after 100 MiB.
        #expect(output.capacity <= limit)
    }

    @Test("a message of exactly the size limit is accepted and one byte more is refused")
    func sizeLimitIsExact() throws {
        let message = ByteBuffer(bytes: DeflatePayload.randomText(count: 10_000, seed: 3))
        let compressor = try MessageCompressor(windowBits: 15, noContextTakeover: true, level: 6)
        let compressed = try compressor.compress(message, allocator: allocator)

        let exact = try MessageDecompressor(windowBits: 15, noContextTakeover: true, maximumMessageSize: 10_000)
        #expect(try exact.decompress(compressed, allocator: allocator) == message)

        let short = try MessageDecompressor(windowBits: 15, noContextTakeover: true, maximumMessageSize: 9_999)
        let error = #expect(throws: TransportError.self) {
            _ = try short.decompress(compressed, allocator: allocator)
        }
        #expect(error?.code == .messageTooLarge)
    }

    @Test("the size limit counts every fragment of a message and restarts with the next message")
    func sizeLimitSpansFragments() throws {
        let message = ByteBuffer(bytes: DeflatePayload.randomText(count: 6_000, seed: 5))
        let compressor = try MessageCompressor(windowBits: 15, noContextTakeover: true, level: 6)
        let compressed = try compressor.compress(message, allocator: allocator)
        let half = compressed.readableBytes / 2
        let firstHalf = try #require(compressed.getSlice(at: compressed.readerIndex, length: half))
        let secondHalf = try #require(
            compressed.getSlice(at: compressed.readerIndex + half, length: compressed.readableBytes - half)
        )

        let decompressor = try MessageDecompressor(windowBits: 15, noContextTakeover: true, maximumMessageSize: 6_000)
        for _ in 0 ..< 2 {
            var output = allocator.buffer(capacity: 0)
            try decompressor.decompressFragment(firstHalf, isFinal: false, into: &output)
            try decompressor.decompressFragment(secondHalf, isFinal: true, into: &output)
            #expect(output == message)
        }

        let tight = try MessageDecompressor(windowBits: 15, noContextTakeover: true, maximumMessageSize: 5_999)
        var output = allocator.buffer(capacity: 0)
        let error = #expect(throws: TransportError.self) {
            try tight.decompressFragment(firstHalf, isFinal: false, into: &output)
            try tight.decompressFragment(secondHalf, isFinal: true, into: &output)
        }
        #expect(error?.code == .messageTooLarge)
    }

    @Test(
        "corrupt compressed data is a protocol violation",
        arguments: [
            [0xFF, 0xFF, 0xFF, 0xFF],
            [0x00, 0x05, 0x00, 0x00, 0x00, 0x48, 0x65],
            [0x04],
            [0xF2, 0x00, 0x11, 0x00, 0x00],
        ] as [[UInt8]]
    )
    func corruptDataIsProtocolViolation(payload: [UInt8]) throws {
        let decompressor = try MessageDecompressor(windowBits: 15, noContextTakeover: false, maximumMessageSize: 1 << 20)
        let error = #expect(throws: TransportError.self) {
            _ = try decompressor.decompress(ByteBuffer(bytes: payload), allocator: allocator)
        }
        #expect(error?.code == .protocolViolation)
    }

    @Test("with an 8-bit window a repeat 300 bytes back is not referenced, so a 256-byte window decodes it")
    func eightBitWindowStaysWithin256Bytes() throws {
        let block = DeflatePayload.randomBytes(count: 300, seed: 11)
        let compressor = try MessageCompressor(windowBits: 8, noContextTakeover: false, level: 9)
        let decompressor = try MessageDecompressor(windowBits: 8, noContextTakeover: false, maximumMessageSize: 4096)
        #expect(compressor.windowBits == 8)
        for _ in 0 ..< 4 {
            let compressed = try compressor.compress(ByteBuffer(bytes: block), allocator: allocator)
            #expect(compressed.readableBytes > 250)
            let restored = try decompressor.decompress(compressed, allocator: allocator)
            #expect(Array(restored.readableBytesView) == block)
        }
    }

    @Test("a 9-bit decompressor rejects a reference further back than its window")
    func smallWindowRejectsFarReferences() throws {
        let block = DeflatePayload.randomBytes(count: 1000, seed: 13)
        let compressor = try MessageCompressor(windowBits: 15, noContextTakeover: false, level: 9)
        let decompressor = try MessageDecompressor(windowBits: 9, noContextTakeover: false, maximumMessageSize: 4096)
        _ = try decompressor.decompress(try compressor.compress(ByteBuffer(bytes: block), allocator: allocator), allocator: allocator)
        let second = try compressor.compress(ByteBuffer(bytes: block), allocator: allocator)
        #expect(second.readableBytes < 50)
        let error = #expect(throws: TransportError.self) {
            _ = try decompressor.decompress(second, allocator: allocator)
        }
        #expect(error?.code == .protocolViolation)
    }

    @Test("compression and decompression append to what the output buffer already holds")
    func appendsToOutput() throws {
        let compressor = try MessageCompressor(windowBits: 15, noContextTakeover: true, level: 6)
        let decompressor = try MessageDecompressor(windowBits: 15, noContextTakeover: true, maximumMessageSize: 1 << 20)
        let message = ByteBuffer(bytes: DeflatePayload.randomText(count: 5000, seed: 17))
        let alone = try compressor.compress(message, allocator: allocator)

        var compressed = ByteBuffer(string: "prefix")
        try compressor.compress(message, into: &compressed)
        #expect(compressed.readString(length: 6) == "prefix")
        #expect(compressed == alone)

        var restored = ByteBuffer(string: "head")
        try decompressor.decompress(alone, into: &restored)
        #expect(restored.readString(length: 4) == "head")
        #expect(restored == message)

        // A cleared buffer is reused without growing.
        let capacity = restored.capacity
        restored.clear()
        try decompressor.decompress(alone, into: &restored)
        #expect(restored == message)
        #expect(restored.capacity == capacity)
    }

    @Test("the input buffer is read, not consumed or changed")
    func inputIsUntouched() throws {
        let compressor = try MessageCompressor(windowBits: 15, noContextTakeover: true, level: 6)
        let decompressor = try MessageDecompressor(windowBits: 15, noContextTakeover: true, maximumMessageSize: 1 << 20)
        var message = ByteBuffer(string: "skip")
        message.writeBytes(DeflatePayload.randomText(count: 1000, seed: 19))
        message.moveReaderIndex(forwardBy: 4)
        let copy = message
        let compressed = try compressor.compress(message, allocator: allocator)
        #expect(message == copy)
        #expect(try decompressor.decompress(compressed, allocator: allocator) == message)
    }

    @Test("the codec compresses only messages at or above the threshold")
    func codecThreshold() throws {
        let agreed = AgreedDeflateParameters(
            sendWindowBits: 15, sendNoContextTakeover: false, receiveWindowBits: 15, receiveNoContextTakeover: false
        )
        let codec = try PerMessageDeflateCodec(
            agreed: agreed,
            configuration: PerMessageDeflateConfiguration(minimumSizeToCompress: 256),
            maximumMessageSize: 1 << 20
        )
        #expect(!codec.shouldCompress(payloadSize: 255))
        #expect(codec.shouldCompress(payloadSize: 256))
        let everything = try PerMessageDeflateCodec(
            agreed: agreed,
            configuration: PerMessageDeflateConfiguration(minimumSizeToCompress: -5),
            maximumMessageSize: 1 << 20
        )
        #expect(everything.shouldCompress(payloadSize: 0))
    }

    @Test(
        "a client and a server built from one negotiation exchange messages both ways",
        arguments: [
            PerMessageDeflateConfiguration(),
            PerMessageDeflateConfiguration(clientNoContextTakeover: true, serverNoContextTakeover: true),
            PerMessageDeflateConfiguration(clientMaxWindowBits: 8, serverMaxWindowBits: 8),
            PerMessageDeflateConfiguration(clientMaxWindowBits: 10, serverMaxWindowBits: 12, compressionLevel: 1),
        ]
    )
    func negotiatedPeersInteroperate(configuration: PerMessageDeflateConfiguration) throws {
        let offer = PerMessageDeflateNegotiation.clientOffer(for: configuration)
        let accepted = try #require(
            PerMessageDeflateNegotiation.serverAgreement(
                offerHeaderValues: [offer.headerValue],
                configuration: configuration
            )
        )
        let clientAgreed = try #require(
            try PerMessageDeflateNegotiation.clientAgreement(
                responseHeaderValues: [accepted.responseHeaderValue],
                offer: offer
            )
        )
        let client = try PerMessageDeflateCodec(agreed: clientAgreed, configuration: configuration, maximumMessageSize: 2 << 20)
        let server = try PerMessageDeflateCodec(agreed: accepted.agreed, configuration: configuration, maximumMessageSize: 2 << 20)
        for payload in [DeflatePayload.repetitiveMebibyte, .small, .randomMebibyte, .repetitiveMebibyte] {
            let message = ByteBuffer(bytes: payload.bytes)
            let fromClient = try server.decompress(try client.compress(message, allocator: allocator), allocator: allocator)
            #expect(fromClient == message)
            let fromServer = try client.decompress(try server.compress(message, allocator: allocator), allocator: allocator)
            #expect(fromServer == message)
        }
    }

    /// Raw DEFLATE of `count` zero bytes, flushed like a permessage-deflate message.
    private static func compressedZeros(count: Int) throws -> ByteBuffer {
        let compressor = try MessageCompressor(windowBits: 15, noContextTakeover: false, level: 9)
        let zeros = ByteBuffer(repeating: 0, count: 1 << 20)
        var output = ByteBufferAllocator().buffer(capacity: 128 << 10)
        var whole = ByteBufferAllocator().buffer(capacity: 128 << 10)
        // Each piece is flushed; the flush markers the compressor removes are put back between
        // pieces so that the whole decodes as a single message.
        for index in 0 ..< count / zeros.readableBytes {
            output.clear()
            try compressor.compress(zeros, into: &output)
            whole.writeImmutableBuffer(output)
            if index < count / zeros.readableBytes - 1 {
                whole.writeBytes([0x00, 0x00, 0xFF, 0xFF])
            }
        }
        return whole
    }
}

// MARK: - Negotiation

@Suite("Per-message deflate negotiation")
struct PerMessageDeflateNegotiationTests {
    @Test(
        "a client offer lists the configured parameters and always offers client_max_window_bits",
        arguments: [
            (PerMessageDeflateConfiguration(), "permessage-deflate; client_max_window_bits"),
            (
                PerMessageDeflateConfiguration(
                    clientNoContextTakeover: true,
                    serverNoContextTakeover: true,
                    clientMaxWindowBits: 12,
                    serverMaxWindowBits: 10
                ),
                "permessage-deflate; server_no_context_takeover; client_no_context_takeover; "
                    + "server_max_window_bits=10; client_max_window_bits=12"
            ),
            (
                PerMessageDeflateConfiguration(clientMaxWindowBits: 3, serverMaxWindowBits: 99),
                "permessage-deflate; server_max_window_bits=15; client_max_window_bits=8"
            ),
        ]
    )
    func clientOffer(configuration: PerMessageDeflateConfiguration, expected: String) {
        #expect(PerMessageDeflateNegotiation.clientOfferHeaderValue(for: configuration) == expected)
    }

    @Test(
        "a server accepts an offer with each parameter and answers with the agreed values",
        arguments: [
            ServerCase("permessage-deflate", .init(), "permessage-deflate", .init(15, false, 15, false)),
            ServerCase(
                "permessage-deflate; server_no_context_takeover", .init(),
                "permessage-deflate; server_no_context_takeover", .init(15, true, 15, false)
            ),
            ServerCase(
                "permessage-deflate; client_no_context_takeover", .init(),
                "permessage-deflate; client_no_context_takeover", .init(15, false, 15, true)
            ),
            ServerCase(
                "permessage-deflate; server_max_window_bits=10", .init(),
                "permessage-deflate; server_max_window_bits=10", .init(10, false, 15, false)
            ),
            ServerCase(
                "permessage-deflate; client_max_window_bits", .init(),
                "permessage-deflate", .init(15, false, 15, false)
            ),
            ServerCase(
                "permessage-deflate; client_max_window_bits=11", .init(),
                "permessage-deflate; client_max_window_bits=11", .init(15, false, 11, false)
            ),
            ServerCase(
                "permessage-deflate; client_max_window_bits", .init(clientMaxWindowBits: 9),
                "permessage-deflate; client_max_window_bits=9", .init(15, false, 9, false)
            ),
            ServerCase(
                "permessage-deflate; client_max_window_bits=12", .init(clientMaxWindowBits: 10),
                "permessage-deflate; client_max_window_bits=10", .init(15, false, 10, false)
            ),
            ServerCase(
                "permessage-deflate; client_max_window_bits=9", .init(clientMaxWindowBits: 10),
                "permessage-deflate; client_max_window_bits=9", .init(15, false, 9, false)
            ),
            ServerCase(
                "permessage-deflate; server_max_window_bits=12", .init(serverMaxWindowBits: 9),
                "permessage-deflate; server_max_window_bits=9", .init(9, false, 15, false)
            ),
            ServerCase(
                "permessage-deflate", .init(serverMaxWindowBits: 8),
                "permessage-deflate; server_max_window_bits=8", .init(8, false, 15, false)
            ),
            ServerCase(
                "permessage-deflate",
                .init(clientNoContextTakeover: true, serverNoContextTakeover: true),
                "permessage-deflate; server_no_context_takeover; client_no_context_takeover",
                .init(15, true, 15, true)
            ),
            ServerCase(
                "permessage-deflate; server_max_window_bits=\"10\"; client_max_window_bits=\"1\\2\"", .init(),
                "permessage-deflate; server_max_window_bits=10; client_max_window_bits=12", .init(10, false, 12, false)
            ),
            ServerCase(
                "  PerMessage-Deflate ;Server_No_Context_Takeover ;  CLIENT_MAX_WINDOW_BITS = 13  ", .init(),
                "permessage-deflate; server_no_context_takeover; client_max_window_bits=13", .init(15, true, 13, false)
            ),
        ]
    )
    func serverAcceptsOffer(testCase: ServerCase) throws {
        let result = try #require(
            PerMessageDeflateNegotiation.serverAgreement(
                offerHeaderValues: [testCase.offer],
                configuration: testCase.configuration
            )
        )
        #expect(result.responseHeaderValue == testCase.response)
        #expect(result.agreed == testCase.agreed)
    }

    @Test(
        "a server declines offers that break RFC 7692 and cannot be parsed",
        arguments: [
            "permessage-deflate; server_no_context_takeover; server_no_context_takeover",
            "permessage-deflate; client_max_window_bits; CLIENT_MAX_WINDOW_BITS=10",
            "permessage-deflate; server_max_window_bits",
            "permessage-deflate; server_max_window_bits=7",
            "permessage-deflate; server_max_window_bits=16",
            "permessage-deflate; server_max_window_bits=08",
            "permessage-deflate; server_max_window_bits=+9",
            "permessage-deflate; client_max_window_bits=0",
            "permessage-deflate; client_max_window_bits=\"\"",
            "permessage-deflate; client_max_window_bits=\"1 0\"",
            "permessage-deflate; client_no_context_takeover=1",
            "permessage-deflate; server_no_context_takeover=\"\"",
            "permessage-deflate; mystery",
            "permessage-deflate; x_max_window_bits=10",
            "permessage-deflate;",
            "permessage-deflate; ; server_no_context_takeover",
            "permessage-deflate; =10",
            "permessage-deflate; server_max_window_bits=\"10",
            "permessage-deflate; server max window bits",
            "permessage-deflate; client_max_window_bits=1\u{00E9}",
            "x-webkit-deflate-frame",
            "",
        ]
    )
    func serverDeclinesInvalidOffer(offer: String) {
        let result = PerMessageDeflateNegotiation.serverAgreement(
            offerHeaderValues: [offer],
            configuration: PerMessageDeflateConfiguration()
        )
        #expect(result == nil)
    }

    @Test(
        "a server skips invalid offers and other extensions and accepts the first acceptable offer",
        arguments: [
            (
                ["permessage-deflate; server_max_window_bits=99, permessage-deflate; server_max_window_bits=11"],
                "permessage-deflate; server_max_window_bits=11"
            ),
            (
                ["x-webkit-deflate-frame; no_context_takeover, permessage-deflate; client_no_context_takeover"],
                "permessage-deflate; client_no_context_takeover"
            ),
            (
                ["permessage-deflate; unknown, permessage-deflate; mystery=1", "permessage-deflate"],
                "permessage-deflate"
            ),
            (
                ["permessage-deflate; a=\"x,y\", , permessage-deflate; server_no_context_takeover, permessage-deflate"],
                "permessage-deflate; server_no_context_takeover"
            ),
            (
                ["permessage-deflate; client_max_window_bits=10, permessage-deflate; client_max_window_bits=9"],
                "permessage-deflate; client_max_window_bits=10"
            ),
        ]
    )
    func serverFallsBack(offers: [String], expected: String) {
        let result = PerMessageDeflateNegotiation.serverAgreement(
            offerHeaderValues: offers,
            configuration: PerMessageDeflateConfiguration()
        )
        #expect(result?.responseHeaderValue == expected)
    }

    @Test("a server limiting the client's window declines offers that do not let it, and takes the next")
    func serverRequiresClientWindowSupport() {
        let configuration = PerMessageDeflateConfiguration(clientMaxWindowBits: 10)
        let declined = PerMessageDeflateNegotiation.serverAgreement(
            offerHeaderValues: ["permessage-deflate"],
            configuration: configuration
        )
        #expect(declined == nil)
        let accepted = PerMessageDeflateNegotiation.serverAgreement(
            offerHeaderValues: ["permessage-deflate, permessage-deflate; client_max_window_bits"],
            configuration: configuration
        )
        #expect(accepted?.responseHeaderValue == "permessage-deflate; client_max_window_bits=10")
        #expect(accepted?.agreed.receiveWindowBits == 10)
        let unlimited = PerMessageDeflateNegotiation.serverAgreement(
            offerHeaderValues: ["permessage-deflate"],
            configuration: PerMessageDeflateConfiguration(clientMaxWindowBits: 15)
        )
        #expect(unlimited?.responseHeaderValue == "permessage-deflate")
    }

    @Test(
        "a client accepts a valid response and derives its own sending and receiving parameters",
        arguments: [
            ClientCase(.init(), [], nil),
            ClientCase(.init(), ["permessage-deflate"], .init(15, false, 15, false)),
            ClientCase(
                .init(), ["permessage-deflate; server_no_context_takeover; client_no_context_takeover"],
                .init(15, true, 15, true)
            ),
            ClientCase(
                .init(), ["permessage-deflate; server_max_window_bits=9; client_max_window_bits=8"],
                .init(9, false, 8, false)
            ),
            ClientCase(
                .init(clientNoContextTakeover: true, clientMaxWindowBits: 12), ["permessage-deflate"],
                .init(15, false, 12, true)
            ),
            ClientCase(
                .init(clientMaxWindowBits: 12), ["permessage-deflate; client_max_window_bits=\"10\""],
                .init(15, false, 10, false)
            ),
            ClientCase(
                .init(serverNoContextTakeover: true, serverMaxWindowBits: 11),
                ["Permessage-Deflate; Server_Max_Window_Bits=10; SERVER_NO_CONTEXT_TAKEOVER"],
                .init(10, true, 15, false)
            ),
            ClientCase(.init(), [""], nil),
        ]
    )
    func clientAcceptsResponse(testCase: ClientCase) throws {
        let offer = PerMessageDeflateNegotiation.clientOffer(for: testCase.configuration)
        let agreed = try PerMessageDeflateNegotiation.clientAgreement(
            responseHeaderValues: testCase.response,
            offer: offer
        )
        #expect(agreed == testCase.agreed?.client)
    }

    @Test(
        "a client fails the handshake when the response breaks RFC 7692 or does not honour the offer",
        arguments: [
            (PerMessageDeflateConfiguration(), "permessage-deflate; mystery"),
            (.init(), "permessage-deflate; server_no_context_takeover; server_no_context_takeover"),
            (.init(), "permessage-deflate; client_max_window_bits"),
            (.init(), "permessage-deflate; server_max_window_bits=16"),
            (.init(), "permessage-deflate; server_max_window_bits=7"),
            (.init(), "permessage-deflate; server_max_window_bits"),
            (.init(), "permessage-deflate; client_max_window_bits=08"),
            (.init(), "permessage-deflate; client_no_context_takeover=yes"),
            (.init(), "permessage-deflate; server_max_window_bits=\"1"),
            (.init(), "permessage-deflate, permessage-deflate"),
            (.init(), "x-webkit-deflate-frame"),
            (.init(), "permessage-deflate; client_max_window_bits=10, x-other"),
            (.init(serverNoContextTakeover: true), "permessage-deflate"),
            (.init(serverMaxWindowBits: 10), "permessage-deflate"),
            (.init(serverMaxWindowBits: 10), "permessage-deflate; server_max_window_bits=11"),
            (.init(clientMaxWindowBits: 10), "permessage-deflate; client_max_window_bits=11"),
        ] as [(PerMessageDeflateConfiguration, String)]
    )
    func clientRejectsResponse(configuration: PerMessageDeflateConfiguration, response: String) {
        let offer = PerMessageDeflateNegotiation.clientOffer(for: configuration)
        let error = #expect(throws: TransportError.self) {
            _ = try PerMessageDeflateNegotiation.clientAgreement(responseHeaderValues: [response], offer: offer)
        }
        #expect(error?.code == .handshakeFailed)
    }

    @Test("a client fails the handshake when client_max_window_bits comes back although it was not offered")
    func clientRejectsUnofferedClientWindow() throws {
        let offer = PerMessageDeflateParameters()
        #expect(offer.headerValue == "permessage-deflate")
        let error = #expect(throws: TransportError.self) {
            _ = try PerMessageDeflateNegotiation.clientAgreement(
                responseHeaderValues: ["permessage-deflate; client_max_window_bits=10"],
                offer: offer
            )
        }
        #expect(error?.code == .handshakeFailed)
        let accepted = try PerMessageDeflateNegotiation.clientAgreement(
            responseHeaderValues: ["permessage-deflate"],
            offer: offer
        )
        #expect(accepted?.sendWindowBits == 15)
    }

    @Test(
        "every server answer to a client's offer is accepted by that client with mirrored parameters",
        arguments: NegotiationPair.all
    )
    func negotiationRoundTrip(pair: NegotiationPair) throws {
        let offer = PerMessageDeflateNegotiation.clientOffer(for: pair.client)
        let server = try #require(
            PerMessageDeflateNegotiation.serverAgreement(offerHeaderValues: [offer.headerValue], configuration: pair.server)
        )
        let client = try #require(
            try PerMessageDeflateNegotiation.clientAgreement(
                responseHeaderValues: [server.responseHeaderValue],
                offer: offer
            )
        )
        #expect(client.sendWindowBits == server.agreed.receiveWindowBits)
        #expect(client.sendNoContextTakeover == server.agreed.receiveNoContextTakeover)
        #expect(client.receiveWindowBits == server.agreed.sendWindowBits)
        #expect(client.receiveNoContextTakeover == server.agreed.sendNoContextTakeover)
        #expect(client.sendWindowBits <= (pair.client.clientMaxWindowBits ?? 15))
        #expect(client.sendWindowBits <= (pair.server.clientMaxWindowBits ?? 15))
        #expect(server.agreed.sendWindowBits <= (pair.client.serverMaxWindowBits ?? 15))
        #expect(server.agreed.sendWindowBits <= (pair.server.serverMaxWindowBits ?? 15))
        #expect(client.sendNoContextTakeover == (pair.client.clientNoContextTakeover || pair.server.clientNoContextTakeover))
        #expect(server.agreed.sendNoContextTakeover == (pair.client.serverNoContextTakeover || pair.server.serverNoContextTakeover))
    }

    @Test("the extension list parser keeps parameters in order, unquotes values and marks malformed elements")
    func parserDetails() {
        let elements = WebSocketExtensionListParser.parse([
            "a; x=1; y=\"q\\\"\"; z, b;;c, \"d\", e; f=\"g,h\"",
            ",, \t f \t",
        ])
        // A quote inside a value, an empty parameter, a quoted name, a comma inside a value:
        // all malformed; then a bare name surrounded by empty elements and whitespace.
        #expect(elements == [nil, nil, nil, nil, WebSocketExtensionElement(name: "f", parameters: [])])

        let valid = WebSocketExtensionListParser.parse("a; x=1; y=\"1\\2\"; z")
        #expect(
            valid == [
                WebSocketExtensionElement(
                    name: "a",
                    parameters: [.init(name: "x", value: "1"), .init(name: "y", value: "12"), .init(name: "z", value: nil)]
                )
            ]
        )
    }
}

// MARK: - Interoperability with Python's zlib

@Suite("Per-message deflate against Python's zlib", .enabled(if: PythonZlib.isAvailable))
struct PerMessageDeflatePythonTests {
    private let allocator = ByteBufferAllocator()

    /// Messages exchanged in every cross-check: empty, small, repeated, large and random.
    private static let messages: [[UInt8]] = [
        DeflatePayload.small.bytes,
        DeflatePayload.repetitiveMebibyte.bytes,
        [],
        DeflatePayload.randomText(count: 3000, seed: 23),
        DeflatePayload.randomText(count: 3000, seed: 23),
        DeflatePayload.randomBytes(count: 70_000, seed: 29),
        DeflatePayload.small.bytes,
    ]

    @Test("messages compressed here inflate correctly in Python", arguments: DirectionSettings.all)
    func swiftToPython(settings: DirectionSettings) async throws {
        let compressor = try MessageCompressor(
            windowBits: settings.windowBits,
            noContextTakeover: settings.noContextTakeover,
            level: 6
        )
        let compressed = try Self.messages.map { message in
            Array(try compressor.compress(ByteBuffer(bytes: message), allocator: allocator).readableBytesView)
        }
        let inflated = try await PythonZlib.run(
            mode: "inflate",
            windowBits: settings.windowBits,
            noContextTakeover: settings.noContextTakeover,
            messages: compressed
        )
        #expect(inflated == Self.messages)
    }

    @Test(
        "messages compressed by Python inflate correctly here",
        arguments: DirectionSettings.all.filter { $0.windowBits >= 9 }
    )
    func pythonToSwift(settings: DirectionSettings) async throws {
        let compressed = try await PythonZlib.run(
            mode: "deflate",
            windowBits: settings.windowBits,
            noContextTakeover: settings.noContextTakeover,
            messages: Self.messages
        )
        #expect(compressed.count == Self.messages.count)
        let decompressor = try MessageDecompressor(
            windowBits: settings.windowBits,
            noContextTakeover: settings.noContextTakeover,
            maximumMessageSize: 2 << 20
        )
        let restored = try compressed.map { payload in
            Array(try decompressor.decompress(ByteBuffer(bytes: payload), allocator: allocator).readableBytesView)
        }
        #expect(restored == Self.messages)
    }
}

// MARK: - Fixtures

/// The payloads of the round-trip tests.
enum DeflatePayload: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case empty
    case small
    case repetitiveMebibyte
    case randomMebibyte
    case periodic300

    var testDescription: String { rawValue }

    /// The payload's bytes.
    var bytes: [UInt8] {
        switch self {
        case .empty:
            []
        case .small:
            Array(#"{"id":1,"method":"ping","params":[]}"#.utf8)
        case .repetitiveMebibyte:
            Self.repetitive
        case .randomMebibyte:
            Self.random
        case .periodic300:
            Self.periodic
        }
    }

    private static let repetitive: [UInt8] = {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(1 << 20)
        var index = 0
        while bytes.count < 1 << 20 {
            bytes.append(contentsOf: #"{"id":\#(index),"method":"call","params":["alpha","beta",\#(index % 97)]}"#.utf8)
            index += 1
        }
        return Array(bytes.prefix(1 << 20))
    }()

    private static let random = randomBytes(count: 1 << 20, seed: 1)

    /// A 300-byte random block repeated: matches lie just beyond a 256-byte window.
    private static let periodic: [UInt8] = {
        let block = randomBytes(count: 300, seed: 2)
        return Array((0 ..< 200).map { _ in block }.joined())
    }()

    /// Deterministic pseudo-random bytes.
    static func randomBytes(count: Int, seed: UInt64) -> [UInt8] {
        var generator = SplitMix64(seed: seed)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 8)
        while bytes.count < count {
            withUnsafeBytes(of: generator.next().littleEndian) { bytes.append(contentsOf: $0) }
        }
        return Array(bytes.prefix(count))
    }

    /// Deterministic pseudo-random words: compressible, but without long repeats.
    static func randomText(count: Int, seed: UInt64) -> [UInt8] {
        var generator = SplitMix64(seed: seed)
        let words = ["call", "result", "error", "stream", "pipeline", "promise", "export", "import", "release", "abort"]
        var bytes: [UInt8] = []
        while bytes.count < count {
            bytes.append(contentsOf: (words.randomElement(using: &generator) ?? "x").utf8)
            bytes.append(contentsOf: String(UInt16.random(in: 0 ... .max, using: &generator), radix: 16).utf8)
            bytes.append(UInt8(ascii: " "))
        }
        return Array(bytes.prefix(count))
    }
}

/// A window size and context takeover setting for one direction.
struct DirectionSettings: CustomTestStringConvertible, Sendable {
    var windowBits: Int
    var noContextTakeover: Bool

    var testDescription: String {
        "\(windowBits) bits, \(noContextTakeover ? "no context takeover" : "context takeover")"
    }

    /// Every window size from 8 to 15, each with and without context takeover.
    static let all: [DirectionSettings] = (8 ... 15).flatMap { bits in
        [DirectionSettings(windowBits: bits, noContextTakeover: false), DirectionSettings(windowBits: bits, noContextTakeover: true)]
    }
}

/// The expected agreement, from the client's or the server's point of view.
struct ExpectedAgreement: Sendable {
    /// The server's sending window, and whether the server resets after each message.
    var serverBits: Int
    var serverNoContextTakeover: Bool
    /// The client's sending window, and whether the client resets after each message.
    var clientBits: Int
    var clientNoContextTakeover: Bool

    init(_ serverBits: Int, _ serverNoContextTakeover: Bool, _ clientBits: Int, _ clientNoContextTakeover: Bool) {
        self.serverBits = serverBits
        self.serverNoContextTakeover = serverNoContextTakeover
        self.clientBits = clientBits
        self.clientNoContextTakeover = clientNoContextTakeover
    }

    var server: AgreedDeflateParameters {
        AgreedDeflateParameters(
            sendWindowBits: serverBits,
            sendNoContextTakeover: serverNoContextTakeover,
            receiveWindowBits: clientBits,
            receiveNoContextTakeover: clientNoContextTakeover
        )
    }

    var client: AgreedDeflateParameters {
        AgreedDeflateParameters(
            sendWindowBits: clientBits,
            sendNoContextTakeover: clientNoContextTakeover,
            receiveWindowBits: serverBits,
            receiveNoContextTakeover: serverNoContextTakeover
        )
    }
}

/// An offer, the server's configuration, and the expected answer.
struct ServerCase: CustomTestStringConvertible, Sendable {
    var offer: String
    var configuration: PerMessageDeflateConfiguration
    var response: String
    var expected: ExpectedAgreement

    init(_ offer: String, _ configuration: PerMessageDeflateConfiguration, _ response: String, _ expected: ExpectedAgreement) {
        self.offer = offer
        self.configuration = configuration
        self.response = response
        self.expected = expected
    }

    var agreed: AgreedDeflateParameters { expected.server }
    var testDescription: String { offer }
}

/// A client's configuration, the server's response and the expected outcome.
struct ClientCase: CustomTestStringConvertible, Sendable {
    var configuration: PerMessageDeflateConfiguration
    var response: [String]
    var agreed: ExpectedAgreement?

    init(_ configuration: PerMessageDeflateConfiguration, _ response: [String], _ agreed: ExpectedAgreement?) {
        self.configuration = configuration
        self.response = response
        self.agreed = agreed
    }

    var testDescription: String { response.joined(separator: " | ") }
}

/// A client and a server configuration that meet in a handshake.
struct NegotiationPair: CustomTestStringConvertible, Sendable {
    var client: PerMessageDeflateConfiguration
    var server: PerMessageDeflateConfiguration

    var testDescription: String { "client \(client), server \(server)" }

    /// Combinations of the settings of both sides.
    static let all: [NegotiationPair] = {
        let clients = [
            PerMessageDeflateConfiguration(),
            PerMessageDeflateConfiguration(clientNoContextTakeover: true),
            PerMessageDeflateConfiguration(serverNoContextTakeover: true, serverMaxWindowBits: 10),
            PerMessageDeflateConfiguration(clientMaxWindowBits: 9),
            PerMessageDeflateConfiguration(clientMaxWindowBits: 12, serverMaxWindowBits: 8),
        ]
        let servers = [
            PerMessageDeflateConfiguration(),
            PerMessageDeflateConfiguration(serverNoContextTakeover: true),
            PerMessageDeflateConfiguration(clientNoContextTakeover: true, clientMaxWindowBits: 10),
            PerMessageDeflateConfiguration(serverMaxWindowBits: 11),
        ]
        return clients.flatMap { client in servers.map { NegotiationPair(client: client, server: $0) } }
    }()
}

/// A small, fast, seedable generator, so that the random payloads are the same on every run.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}

/// Runs Python's zlib as a peer: raw DEFLATE with the permessage-deflate flush convention.
enum PythonZlib {
    /// The interpreter, found on the search path, when it can import zlib.
    static let interpreter: URL? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for directory in path.split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent("python3")
            guard FileManager.default.isExecutableFile(atPath: candidate.path) else { continue }
            let process = Process()
            process.executableURL = candidate
            process.arguments = ["-c", "import zlib"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            do {
                try process.run()
                process.waitUntilExit()
            } catch {
                continue
            }
            if process.terminationStatus == 0 { return candidate }
        }
        return nil
    }()

    /// Whether the cross-checks can run.
    static var isAvailable: Bool { interpreter != nil }

    /// Inflates (`mode` "inflate") or deflates (`mode` "deflate") each message in Python, with one
    /// stream for all messages unless `noContextTakeover`. The interpreter is awaited on a thread
    /// of its own: blocking a thread of the small cooperative pool for its whole run would starve
    /// the tests running meanwhile.
    static func run(mode: String, windowBits: Int, noContextTakeover: Bool, messages: [[UInt8]]) async throws -> [[UInt8]] {
        let interpreter = try #require(interpreter)
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("permessage-deflate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("in")
        let output = directory.appendingPathComponent("out")
        try Data(frame(messages)).write(to: input)

        let arguments = [
            "-c", script, mode, String(windowBits), noContextTakeover ? "1" : "0", input.path, output.path,
        ]
        let status = try await onOwnThread {
            let process = Process()
            process.executableURL = interpreter
            process.arguments = arguments
            try process.run()
            process.waitUntilExit()
            return process.terminationStatus
        }
        try #require(status == 0)
        return try unframe(Array(Data(contentsOf: output)))
    }

    /// Each message preceded by its length as four big-endian bytes.
    private static func frame(_ messages: [[UInt8]]) -> [UInt8] {
        var bytes: [UInt8] = []
        for message in messages {
            let count = UInt32(message.count)
            bytes.append(contentsOf: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: count >> $0) })
            bytes.append(contentsOf: message)
        }
        return bytes
    }

    /// The inverse of ``frame(_:)``.
    private static func unframe(_ bytes: [UInt8]) throws -> [[UInt8]] {
        var messages: [[UInt8]] = []
        var index = 0
        while index < bytes.count {
            try #require(index + 4 <= bytes.count)
            let count = bytes[index ..< index + 4].reduce(0) { $0 << 8 | Int($1) }
            index += 4
            try #require(index + count <= bytes.count)
            messages.append(Array(bytes[index ..< index + count]))
            index += count
        }
        return messages
    }

    /// The Python side: reads framed messages, transforms each, writes them framed.
    private static let script = """
        import struct, sys, zlib
        mode, bits, reset, source, target = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1", sys.argv[4], sys.argv[5]
        data = open(source, "rb").read()
        out = bytearray()
        coder = None
        index = 0
        while index < len(data):
            (count,) = struct.unpack(">I", data[index:index + 4])
            message = data[index + 4:index + 4 + count]
            index += 4 + count
            if mode == "inflate":
                if coder is None or reset:
                    coder = zlib.decompressobj(-bits)
                result = coder.decompress(message + b"\\x00\\x00\\xff\\xff")
            else:
                if coder is None or reset:
                    coder = zlib.compressobj(6, zlib.DEFLATED, -bits)
                result = coder.compress(message) + coder.flush(zlib.Z_SYNC_FLUSH)
                if not result.endswith(b"\\x00\\x00\\xff\\xff"):
                    sys.exit(3)
                result = result[:-4]
            out += struct.pack(">I", len(result)) + result
        open(target, "wb").write(bytes(out))
        """
}
