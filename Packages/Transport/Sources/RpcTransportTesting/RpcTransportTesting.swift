// What tests of code built on the transports use: the in-memory transport pair with its fault
// injection, the wait-for-a-condition helpers of the wire layer's tests, the certificates of the
// TLS tests (`CertificateFixture`), and the repository's commands run as child processes
// (`CommandProcess`).
@_exported public import RpcTesting
@_exported public import RpcTransportInMemory
