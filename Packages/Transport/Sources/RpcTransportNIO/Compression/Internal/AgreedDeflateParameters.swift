/// What one endpoint of a connection does after permessage-deflate was agreed.
///
/// The handshake speaks of "client" and "server"; this type speaks of this endpoint's two
/// directions. A client sends with the client's parameters and receives with the server's; a
/// server the other way round.
struct AgreedDeflateParameters: Hashable, Sendable {
    /// The window this endpoint compresses with, in bits (`8...15`).
    var sendWindowBits: Int
    /// Whether this endpoint resets its compressor after each message it sends.
    var sendNoContextTakeover: Bool
    /// The window the peer compresses with, which this endpoint decompresses with (`8...15`).
    var receiveWindowBits: Int
    /// Whether the peer resets its compressor after each message, so this endpoint resets its
    /// decompressor too.
    var receiveNoContextTakeover: Bool

    /// Creates agreed parameters.
    init(sendWindowBits: Int, sendNoContextTakeover: Bool, receiveWindowBits: Int, receiveNoContextTakeover: Bool) {
        self.sendWindowBits = sendWindowBits
        self.sendNoContextTakeover = sendNoContextTakeover
        self.receiveWindowBits = receiveWindowBits
        self.receiveNoContextTakeover = receiveNoContextTakeover
    }
}
