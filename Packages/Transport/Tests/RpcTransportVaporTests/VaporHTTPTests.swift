import RpcTransport
import RpcTransportNIO
import RpcTransportVapor
import Testing
import Vapor

@Suite("Vapor requests and responses as our HTTP types")
struct VaporHTTPTests {
    /// Answers with the request's method, path, query value and body length in headers, and
    /// its body reversed, with status 201; a body over the limit gets 413.
    static func reflect(_ request: Request, limit: Int) async -> Response {
        do {
            let server = try await request.serverRequest(maxBodySize: limit)
            var headers = HTTPHeaders()
            headers.add(name: "x-method", value: server.method.rawValue)
            headers.add(name: "x-path", value: server.path)
            headers.add(name: "x-query", value: server.queryValue("q") ?? "")
            headers.add(name: "x-token", value: server.headers.first(name: "x-token") ?? "")
            headers.add(name: "content-length", value: "1")
            return Response(HTTPServerResponse(status: 201, headers: headers, body: server.body.reversed()))
        } catch {
            return Response(HTTPServerResponse(status: error.httpStatus ?? 500, text: error.message))
        }
    }

    @Test("A request's method, target, headers and whole body reach the handler, and its response comes back")
    func requestAndResponse() async throws {
        try await VaporTestApp.run(configure: { app in
            app.on(.POST, "upload", body: .stream) { request in await Self.reflect(request, limit: 256 * 1024) }
            app.on(.PUT, "small") { request in await Self.reflect(request, limit: 256 * 1024) }
        }) { _, port in
            let client = try RpcTransportNIO.HTTPClient(baseURL: "http://127.0.0.1:\(port)")
            let body = (0 ..< 200_000).map { UInt8(truncatingIfNeeded: $0 &* 13) }
            let response = try await client.execute(
                HTTPClientRequest(method: .POST, path: "/upload?q=a%20b", headers: ["x-token": "t1"], body: body))
            #expect(response.status == 201)
            #expect(response.body == Array(body.reversed()))
            #expect(response.headers.first(name: "x-method") == "POST")
            #expect(response.headers.first(name: "x-path") == "/upload")
            #expect(response.headers.first(name: "x-query") == "a b")
            #expect(response.headers.first(name: "x-token") == "t1")
            #expect(response.headers.first(name: "content-length") == "\(body.count)")
            // A body Vapor collected itself (a route without `body: .stream`) is taken as it is.
            let small = try await client.execute(HTTPClientRequest(method: .PUT, path: "/small", body: [1, 2, 3]))
            #expect(small.status == 201)
            #expect(small.body == [3, 2, 1])
            let empty = try await client.execute(HTTPClientRequest(method: .PUT, path: "/small"))
            #expect(empty.status == 201)
            #expect(empty.body.isEmpty)
            await client.close()
        }
    }

    @Test("A body over the limit is refused with 413, one of exactly the limit is read")
    func bodyLimit() async throws {
        try await VaporTestApp.run(configure: { app in
            app.on(.POST, "upload", body: .stream) { request in await Self.reflect(request, limit: 64 * 1024) }
        }) { _, port in
            let client = try RpcTransportNIO.HTTPClient(baseURL: "http://127.0.0.1:\(port)")
            let exact = try await client.execute(
                HTTPClientRequest(method: .POST, path: "/upload", body: [UInt8](repeating: 7, count: 64 * 1024)))
            #expect(exact.status == 201)
            let over = try await client.execute(
                HTTPClientRequest(method: .POST, path: "/upload", body: [UInt8](repeating: 7, count: 64 * 1024 + 1)))
            #expect(over.status == 413)
            await client.close()
        }
    }

    @Test("A status outside 100–599 is sent as 500")
    func invalidStatus() async throws {
        try await VaporTestApp.run(configure: { app in
            app.get("odd") { _ in Response(HTTPServerResponse(status: 42, text: "odd")) }
        }) { _, port in
            let client = try RpcTransportNIO.HTTPClient(baseURL: "http://127.0.0.1:\(port)")
            let response = try await client.execute(HTTPClientRequest(method: .GET, path: "/odd"))
            #expect(response.status == 500)
            #expect(response.body == Array("odd".utf8))
            await client.close()
        }
    }
}
