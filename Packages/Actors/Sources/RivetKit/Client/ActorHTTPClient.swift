public import RpcTransportNIO

/// What a ``RivetKitClient`` sends its HTTP requests through (`GET /metadata`, `PUT /actors`,
/// actions over HTTP): one client per endpoint, made by ``ClientTransports/makeHTTPClient``
/// and closed when the RivetKit client is.
///
/// ``HTTPClient`` is one; a test may answer requests in process instead.
public protocol ActorHTTPClient: Sendable {
    /// Sends `request` (its path relative to the endpoint) and returns the answer, whatever
    /// its status.
    ///
    /// - Throws: ``TransportError`` when no answer came.
    func execute(_ request: HTTPClientRequest) async throws(TransportError) -> HTTPClientResponse

    /// Closes the connections it holds; requests after it fail.
    func close() async
}

extension HTTPClient: ActorHTTPClient {}
