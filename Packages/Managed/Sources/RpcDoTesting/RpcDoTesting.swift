// What tests of packages built on RpcDo use from the layers below, so that a package above names
// only RpcDo's package: the in-memory transport pair with its fault injection, and the
// wait-for-a-condition helpers; and `JSONRPCTestPeer`, a JSON-RPC peer over in-memory pairs.
@_exported public import RpcTransportTesting
