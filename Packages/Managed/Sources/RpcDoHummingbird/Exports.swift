// Cap'n Web on Hummingbird 2, and the transport adapter it is built on, for the packages above.
@_exported public import CapnWebHummingbird
@_exported public import RpcTransportHummingbird
