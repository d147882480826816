// The NIO transports implement and configure the abstractions of `RpcTransport`, so importing
// this module brings them (and the wire layer) along.
@_exported public import RpcTransport
