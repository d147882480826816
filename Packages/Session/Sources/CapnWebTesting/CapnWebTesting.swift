// What tests of code built on Cap'n Web use: everything `CapnWeb` exports, and the in-memory
// transport pair with its fault injection.
@_exported public import CapnWeb
@_exported public import RpcTransportInMemory
