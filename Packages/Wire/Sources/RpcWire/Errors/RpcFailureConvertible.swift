/// An error that can be read as an ``RpcFailure``.
///
/// Every layer's error type conforms, mapping each of its own codes to an ``RpcFailure/Code``
/// with a documented table, setting the ``RpcFailure/origin``, and keeping itself as the
/// ``RpcFailure/cause``.
public protocol RpcFailureConvertible: Error {
    /// This error as an ``RpcFailure``.
    var rpcFailure: RpcFailure { get }
}
