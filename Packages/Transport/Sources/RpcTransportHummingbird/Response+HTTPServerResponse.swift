public import Hummingbird
public import RpcTransportNIO
import NIOCore

extension Response {
    /// A Hummingbird response carrying the answer of one of this repository's servers: its
    /// status (500 when outside 100–599), headers and body.
    ///
    /// - Parameter response: The server's answer.
    public init(_ response: HTTPServerResponse) {
        let status = (100 ... 599).contains(response.status) ? response.status : 500
        self.init(
            status: HTTPResponse.Status(code: status),
            headers: HTTPFields(response.headers),
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: response.body)))
    }
}
