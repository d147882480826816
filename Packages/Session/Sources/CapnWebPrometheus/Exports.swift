// The Prometheus `/metrics` endpoint and the commands' ServiceGroup, for the `serve` commands of
// the layers above, which name only the layer below them.
@_exported public import RpcTransportPrometheus
