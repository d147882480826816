import RpcTransport
import RpcTransportNIO

/// permessage-deflate parameters to try against the Python implementation, as test arguments.
struct DeflateSettings: Sendable, CustomStringConvertible {
    /// The configuration under test.
    var configuration: PerMessageDeflateConfiguration

    /// `client_max_window_bits=…, server_no_context_takeover, …`, for test names.
    var description: String {
        var parts: [String] = []
        if configuration.clientNoContextTakeover { parts.append("client_no_context_takeover") }
        if configuration.serverNoContextTakeover { parts.append("server_no_context_takeover") }
        if let bits = configuration.clientMaxWindowBits { parts.append("client_max_window_bits=\(bits)") }
        if let bits = configuration.serverMaxWindowBits { parts.append("server_max_window_bits=\(bits)") }
        return parts.isEmpty ? "defaults" : parts.joined(separator: ", ")
    }

    private static func settings(
        clientNoContextTakeover: Bool = false,
        serverNoContextTakeover: Bool = false,
        clientMaxWindowBits: Int? = nil,
        serverMaxWindowBits: Int? = nil
    ) -> DeflateSettings {
        DeflateSettings(
            configuration: PerMessageDeflateConfiguration(
                clientNoContextTakeover: clientNoContextTakeover,
                serverNoContextTakeover: serverNoContextTakeover,
                clientMaxWindowBits: clientMaxWindowBits,
                serverMaxWindowBits: serverMaxWindowBits,
                minimumSizeToCompress: 0
            )
        )
    }

    // A window of 8 bits is left out: Python's zlib binding refuses to compress with it, so the
    // websockets package fails such a handshake on its own side (500 as a server, a crash of
    // its protocol handler as a client).

    /// What our client asks the Python server for (which accepts any valid offer).
    static let clientOffers: [DeflateSettings] = [
        settings(),
        settings(clientNoContextTakeover: true, serverNoContextTakeover: true),
        settings(clientMaxWindowBits: 11, serverMaxWindowBits: 12),
        settings(clientMaxWindowBits: 9, serverMaxWindowBits: 9),
        settings(serverNoContextTakeover: true, serverMaxWindowBits: 10),
        settings(clientNoContextTakeover: true, clientMaxWindowBits: 15, serverMaxWindowBits: 15),
    ]

    /// What our server imposes on the Python client (which offers `client_max_window_bits`).
    static let serverRequirements: [DeflateSettings] = [
        settings(),
        settings(clientNoContextTakeover: true, serverNoContextTakeover: true),
        settings(clientMaxWindowBits: 12, serverMaxWindowBits: 11),
        settings(clientMaxWindowBits: 9, serverMaxWindowBits: 9),
        settings(serverNoContextTakeover: true, serverMaxWindowBits: 10),
        settings(clientNoContextTakeover: true, clientMaxWindowBits: 12),
    ]

    /// The messages each combination exchanges: short and long, text and binary, several in a
    /// row so that context takeover matters.
    static let messageSpecs: [String] = [
        "text:1", "text:300", "text:300", "binary:5000", "text:70000", "text:70000", "binary:300000", "text:1048577",
    ]

    /// The same messages as our transport sends them.
    static let messages: [TransportMessage] = messageSpecs.map { spec in
        let parts = spec.split(separator: ":")
        let size = Int(parts[1]) ?? 0
        return MessagePattern.message(parts[0] == "text" ? .text : .binary, size: size)
    }
}
