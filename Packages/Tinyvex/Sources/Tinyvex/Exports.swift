// What the client's API uses from the layers below, so that `import Tinyvex` is enough to name
// it: `ReconnectPolicy` and `ConnectionState` (RpcTransport) and `JSONValue` (RpcWire, which
// RpcTransport re-exports).
@_exported public import RpcTransport
