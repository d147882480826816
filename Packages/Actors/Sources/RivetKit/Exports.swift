// What the RivetKit API uses, so that `import RivetKit` is enough: JSON values, the
// connection states and transports, the HTTP request and response of `fetch`, and the managed
// layer below.
@_exported public import RpcDo
@_exported public import RpcTransport
@_exported public import RpcTransportNIO
@_exported public import RpcWire

// The Combine names the API surfaces (`ObservableObject`, `Published`, `AnyPublisher`,
// `AnyCancellable`, `sink`, ...): Combine where it exists, OpenCombine, which spells them the
// same, elsewhere.
#if canImport(Combine)
@_exported public import Combine
#else
@_exported public import OpenCombine
#endif
