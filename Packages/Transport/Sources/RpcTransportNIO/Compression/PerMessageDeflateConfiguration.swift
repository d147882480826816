/// Settings for the WebSocket permessage-deflate extension (RFC 7692).
///
/// The same type configures both ends of a connection. A WebSocket client or server configuration
/// holds an optional value: `nil` means the extension is neither offered nor accepted.
///
/// On a client, the values describe what the opening handshake asks for:
/// - ``clientNoContextTakeover`` announces that the client resets its compressor after each message.
/// - ``serverNoContextTakeover`` asks the server to reset its compressor after each message.
/// - ``clientMaxWindowBits`` announces the largest window the client compresses with;
///   `client_max_window_bits` is always offered, so the server may lower it further.
/// - ``serverMaxWindowBits`` asks the server to compress with at most that window.
///
/// On a server, the values are the server's own requirements, applied to every acceptable offer:
/// - ``serverNoContextTakeover`` makes the server reset its compressor after each message.
/// - ``clientNoContextTakeover`` tells the client to reset its compressor after each message.
/// - ``serverMaxWindowBits`` caps the window the server compresses with.
/// - ``clientMaxWindowBits`` caps the window the client may compress with; an offer that does not
///   let the server limit the client's window (no `client_max_window_bits`) is then declined,
///   and the connection continues uncompressed.
///
/// Smaller windows and no context takeover trade compression ratio for memory: each direction of
/// a connection keeps a compressor and a decompressor whose windows are `2^windowBits` bytes.
///
/// The size limit for decompressed messages is not part of this type: it is the WebSocket
/// maximum message size, so a compressed message can never expand past what an uncompressed one
/// may be.
public struct PerMessageDeflateConfiguration: Sendable, Hashable {
    /// Whether the client resets its compression context after each message.
    public var clientNoContextTakeover: Bool
    /// Whether the server resets its compression context after each message.
    public var serverNoContextTakeover: Bool
    /// The base-2 logarithm of the largest LZ77 window the client compresses with, in `8...15`;
    /// `nil` means no limit beyond the protocol's maximum of 15.
    ///
    /// Values outside `8...15` are clamped into that range. The underlying zlib cannot compress
    /// with a 256-byte window, so an endpoint that agreed to 8 compresses with a window of 9;
    /// zlib never refers further back than the window size minus 262 bytes, so the output still
    /// only refers to the last 250 bytes and a peer with a 256-byte window decodes it.
    public var clientMaxWindowBits: Int?
    /// The base-2 logarithm of the largest LZ77 window the server compresses with, in `8...15`;
    /// `nil` means no limit beyond the protocol's maximum of 15.
    ///
    /// Values outside `8...15` are clamped into that range; see ``clientMaxWindowBits`` for how
    /// a window of 8 is honoured.
    public var serverMaxWindowBits: Int?
    /// The zlib compression level, from 0 (store only) to 9 (smallest output); 6 by default.
    ///
    /// Values outside `0...9` are clamped into that range.
    public var compressionLevel: Int
    /// Messages whose payload is smaller than this many bytes are sent uncompressed, with RSV1
    /// clear (RFC 7692 lets a sender choose per message); ``defaultMinimumSizeToCompress``
    /// (1,024 bytes, as node's `ws` does) by default. Negative values count as 0, which
    /// compresses every message.
    ///
    /// Small messages barely shrink, while compressing them costs a deflate call on this side
    /// and an inflate call on the peer's for every message: the RPC messages of ordinary calls
    /// are well below the default and travel as they are. A message sent uncompressed is not
    /// added to the compression history, on either side, so skipping one never disturbs the
    /// context takeover of the messages that are compressed.
    public var minimumSizeToCompress: Int

    /// The default of ``minimumSizeToCompress``: 1,024 bytes, the threshold of node's `ws`.
    public static let defaultMinimumSizeToCompress = 1024

    /// Creates a configuration.
    ///
    /// - Parameters:
    ///   - clientNoContextTakeover: Whether the client resets its compression context after each message.
    ///   - serverNoContextTakeover: Whether the server resets its compression context after each message.
    ///   - clientMaxWindowBits: The largest window, in bits, the client compresses with; `nil` for no limit.
    ///   - serverMaxWindowBits: The largest window, in bits, the server compresses with; `nil` for no limit.
    ///   - compressionLevel: The zlib compression level, `0...9`.
    ///   - minimumSizeToCompress: The smallest payload, in bytes, that is compressed.
    public init(
        clientNoContextTakeover: Bool = false,
        serverNoContextTakeover: Bool = false,
        clientMaxWindowBits: Int? = nil,
        serverMaxWindowBits: Int? = nil,
        compressionLevel: Int = 6,
        minimumSizeToCompress: Int = PerMessageDeflateConfiguration.defaultMinimumSizeToCompress
    ) {
        self.clientNoContextTakeover = clientNoContextTakeover
        self.serverNoContextTakeover = serverNoContextTakeover
        self.clientMaxWindowBits = clientMaxWindowBits
        self.serverMaxWindowBits = serverMaxWindowBits
        self.compressionLevel = compressionLevel
        self.minimumSizeToCompress = minimumSizeToCompress
    }

    /// The defaults: context takeover in both directions, full 32 KiB windows, level 6, and
    /// compression of messages of 1,024 bytes or more.
    public static let `default` = PerMessageDeflateConfiguration()
}

extension PerMessageDeflateConfiguration {
    /// ``clientMaxWindowBits`` clamped into `8...15`, or `nil`.
    var effectiveClientMaxWindowBits: Int? {
        clientMaxWindowBits.map(DeflateWindowBits.clamped)
    }

    /// ``serverMaxWindowBits`` clamped into `8...15`, or `nil`.
    var effectiveServerMaxWindowBits: Int? {
        serverMaxWindowBits.map(DeflateWindowBits.clamped)
    }

    /// ``compressionLevel`` clamped into `0...9`.
    var effectiveCompressionLevel: Int {
        min(max(compressionLevel, 0), 9)
    }

    /// ``minimumSizeToCompress``, never negative.
    var effectiveMinimumSizeToCompress: Int {
        max(minimumSizeToCompress, 0)
    }
}
