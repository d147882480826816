// What tests of code built on Cap'n Web use: everything `CapnWeb` exports, the in-memory
// transport pair with its fault injection, the wait-for-a-condition helpers, and `MetricsScrape`
// (a command's `GET /metrics`, parsed).
@_exported public import CapnWeb
@_exported public import RpcTransportTesting
