// `import RpcDoVapor`: Cap'n Web on a Vapor application's routes (`addCapnWeb`) and the
// adapter between Vapor's routes and our transports, for the packages above this one that
// mount their own protocols on Vapor.
@_exported public import CapnWebVapor
@_exported public import RpcTransportVapor
