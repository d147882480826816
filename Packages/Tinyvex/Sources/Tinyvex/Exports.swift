// What the client's API uses from the layers below, so that `import Tinyvex` is enough to name
// it: `ReconnectPolicy` and `ConnectionState` (RpcTransport) and `JSONValue` (RpcWire, which
// RpcTransport re-exports).
@_exported public import RpcTransport
// The pages of a paginated query, for a one-shot `query` of one (`subscribePaginated` shows them
// concatenated) and for options written by hand.
@_exported public import struct TinyvexProtocol.TinyvexPaginationOptions
@_exported public import struct TinyvexProtocol.TinyvexPaginationResult
// The publishers' vocabulary the API uses (`AnyPublisher`, `AnyCancellable`, and through
// `Publisher` its operators such as `sink`): Combine on Apple platforms, OpenCombine elsewhere,
// so that `import Tinyvex` is enough on both.
#if canImport(Combine)
@_exported public import struct Combine.AnyPublisher
@_exported public import class Combine.AnyCancellable
@_exported public import protocol Combine.Publisher
@_exported public import protocol Combine.Cancellable
#else
@_exported public import protocol OpenCombine.Publisher
@_exported public import protocol OpenCombine.Cancellable
public import struct OpenCombine.AnyPublisher
public import class OpenCombine.AnyCancellable

/// What the client's publishers are: a type-erased publisher (OpenCombine's `AnyPublisher`,
/// named here so that `import Tinyvex` is enough to spell it).
public typealias AnyPublisher<Output, Failure: Error> = OpenCombine.AnyPublisher<Output, Failure>

/// What `sink` returns: cancels the subscription when cancelled or released (OpenCombine's
/// `AnyCancellable`, named here so that `import Tinyvex` is enough to store one).
public typealias AnyCancellable = OpenCombine.AnyCancellable
#endif
