// The Cap'n Web umbrella: `import CapnWeb` gives the protocol core, its WebSocket and HTTP batch
// clients and servers over SwiftNIO, the in-memory transport pair (for a session whose two ends
// live in one process), and the wire and transport types their APIs use.
@_exported public import CapnWebCore
@_exported public import CapnWebNIO
@_exported public import RpcTransport
@_exported public import RpcTransportInMemory
@_exported public import RpcTransportNIO
@_exported public import RpcWire
