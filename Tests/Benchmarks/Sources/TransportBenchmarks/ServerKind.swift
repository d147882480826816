/// The echo servers the benchmark drives, each run in a process of its own.
enum ServerKind: String, CaseIterable, Sendable {
    /// Our `TransportServer`, echoing with `enqueue` from the `start` handler.
    case ours
    /// The same with permessage-deflate agreed and every message compressed.
    case oursDeflate = "ours-deflate"
    /// The same over TLS.
    case oursTLS = "ours-tls"
    /// SwiftNIO's WebSocket upgrader, frame decoder and encoder and a minimal echo handler.
    case bare
    /// The same behind the package's TLS handler, so the TLS variants compare like with like.
    case bareTLS = "bare-tls"
}

/// One line of the report: a server and the client that drives it.
struct BenchmarkVariant: Sendable {
    /// The label in the report.
    var name: String
    /// The server to start.
    var server: ServerKind
    /// Whether the client is ours (`WebSocketClient`) rather than a bare SwiftNIO one.
    var usesOurClient: Bool
    /// Whether the client offers permessage-deflate (and compresses every message).
    var deflate: Bool
    /// Whether the connection uses TLS.
    var tls: Bool

    /// Every variant, the two plain ones first.
    static let all: [BenchmarkVariant] = [
        BenchmarkVariant(name: "bare-nio", server: .bare, usesOurClient: false, deflate: false, tls: false),
        BenchmarkVariant(name: "transport", server: .ours, usesOurClient: true, deflate: false, tls: false),
        BenchmarkVariant(name: "transport+deflate", server: .oursDeflate, usesOurClient: true, deflate: true, tls: false),
        BenchmarkVariant(name: "transport+tls", server: .oursTLS, usesOurClient: true, deflate: false, tls: true),
        BenchmarkVariant(name: "bare-nio+tls", server: .bareTLS, usesOurClient: false, deflate: false, tls: true),
    ]
}
