// What tests of code built on the transports use: the in-memory transport pair with its fault
// injection, and the wait-for-a-condition helpers of the wire layer's tests.
@_exported public import RpcTesting
@_exported public import RpcTransportInMemory
