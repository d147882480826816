import RpcWire
import TinyvexProtocol

/// How a ``TinyvexServer`` reads one inbound WebSocket message, without serving it: the JSON
/// parse, the JSON-RPC 2.0 decoding of each element (a batch is several), and the reading and
/// checking of each request's params. For fuzzing and tests of the decoder; a server runs the
/// same code on every message it receives.
///
/// ```swift
/// for outcome in TinyvexMessageDecoder.decode(Array(data)) { print(outcome) }
/// ```
public enum TinyvexMessageDecoder {
    /// What the server makes of one element of a message.
    public enum Outcome: Sendable, Hashable {
        /// A request the server would run: its method, params checked.
        case request(method: String)
        /// An element the server answers with this JSON-RPC error code without running it.
        case refused(code: Int)
        /// An answer from the client, which the server ignores (it sends no requests).
        case ignored
    }

    /// Decodes `bytes` as the server decodes one inbound message, with the given limits.
    ///
    /// - Parameters:
    ///   - bytes: The message, as received (any bytes).
    ///   - maxIdentifierBytes: ``TinyvexServerConfiguration/maxIdentifierBytes``.
    /// - Returns: One outcome per element (one for a message that is not JSON or not JSON-RPC).
    public static func decode(_ bytes: [UInt8], maxIdentifierBytes: Int = TinyvexServerConfiguration().maxIdentifierBytes) -> [Outcome] {
        let value: JSONValue
        do {
            value = try JSONParser(configuration: Wire.codec.parserConfiguration).parse(bytes)
        } catch {
            return [.refused(code: JSONRPCErrorObject.parseError("").code)]
        }
        let elements: [Result<JSONRPCMessage, WireError>]
        do {
            elements = try Wire.codec.decodeEach(value)
        } catch {
            return [.refused(code: JSONRPCErrorObject.invalidRequest("").code)]
        }
        return elements.map { element in
            switch element {
            case .failure(let error):
                return .refused(code: Wire.codec.errorResponse(for: error, id: .null).errorCode)
            case .success(.request(_, let method, let params)):
                do throws(JSONRPCErrorObject) {
                    _ = try TinyvexRequest(method: method, params: params, maxIdentifierBytes: maxIdentifierBytes)
                    return .request(method: method)
                } catch {
                    return .refused(code: error.code)
                }
            case .success(.notification):
                return .refused(code: JSONRPCErrorObject.invalidRequest("").code)
            case .success(.success), .success(.failure):
                return .ignored
            }
        }
    }
}

extension JSONRPCMessage {
    /// The error code of a failure answer; `-32603` for anything else.
    fileprivate var errorCode: Int {
        if case .failure(_, let error) = self { return error.code }
        return JSONRPCErrorObject.internalError("").code
    }
}
