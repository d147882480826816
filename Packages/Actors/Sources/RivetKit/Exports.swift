// What the RivetKit API uses, so that `import RivetKit` is enough: JSON values, the
// connection states and transports, and the managed layer below.
@_exported public import RpcDo
@_exported public import RpcTransport
@_exported public import RpcWire
