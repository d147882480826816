// What RpcDo's API uses from the layers below, so that `import RpcDo` is enough to name it:
// `TransportError`, `ConnectionState`, `ReconnectPolicy`, the TLS settings (RpcTransport) and
// `JSONValue` (RpcWire, re-exported by RpcTransport). Cap'n Web's own types (`Ref`, `RpcPayload`)
// come with `import CapnWeb`: both modules declare an `RpcError` of their own seed.
@_exported public import RpcTransport
