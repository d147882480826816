import RpcTransport
import RpcWire
import TinyvexProtocol

/// Encoding of the server's outbound messages.
enum Wire {
    static let codec = JSONRPCCodec()

    static func encode(_ message: JSONRPCMessage) -> TransportMessage {
        // Values come from the database or from Codable encoding, which refuses non-finite
        // numbers; an unwritable value still yields a well-formed internal-error answer.
        if let bytes = try? codec.encode(message) {
            return .text(utf8: bytes)
        }
        let id: JSONRPCID =
            switch message {
            case .request(let id, _, _), .success(let id, _), .failure(let id, _): id
            case .notification: .null
            }
        let fallback = JSONRPCMessage.failure(id: id, error: .internalError("the value could not be written as JSON"))
        return .text(utf8: (try? codec.encode(fallback)) ?? Array(#"{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error"}}"#.utf8))
    }

    static func errorObject(_ error: TinyvexServerError) -> JSONRPCErrorObject {
        var data: JSONObject = ["code": .string(error.code.rawValue)]
        if let details = error.details {
            data.updateValue(details, forKey: "details")
        }
        return JSONRPCErrorObject(code: error.code.jsonRPCCode, message: error.message, data: .object(data))
    }

    static func errorNotice(subID: String?, _ error: TinyvexServerError) -> TransportMessage {
        var params = JSONObject()
        if let subID { params.updateValue(.string(subID), forKey: "subId") }
        params.updateValue(.string(error.code.rawValue), forKey: "code")
        params.updateValue(.string(error.message), forKey: "message")
        if let details = error.details { params.updateValue(details, forKey: "data") }
        return encode(.notification(method: TinyvexMethod.error, params: .named(params)))
    }

    /// A value for a subscription: one `tinyvex/data`, or `transitionChunk`s when its JSON text
    /// is longer than `maxChunkBytes`. The value's text is written as it is (it was encoded once
    /// for every subscriber), around an envelope made for this subscription.
    static func data(subID: String, seq: Int64, value: EncodedValue, maxChunkBytes: Int, transitionID: @autoclosure () -> String) -> [TransportMessage] {
        let text = value.text
        let subIDText = literal(subID)
        if text.count <= maxChunkBytes {
            var bytes: [UInt8] = []
            bytes.reserveCapacity(text.count + subIDText.count + 96)
            bytes += #"{"jsonrpc":"2.0","method":""#.utf8
            bytes += TinyvexMethod.data.utf8
            bytes += #"","params":{"subId":"#.utf8
            bytes += subIDText
            bytes += #","seq":"#.utf8
            bytes += String(seq).utf8
            bytes += #","value":"#.utf8
            bytes += text
            bytes += "}}".utf8
            return [.text(utf8: bytes)]
        }
        // The pieces are escaped once per value; only the envelope is written per subscriber.
        let pieces = value.chunkLiterals(maxBytes: max(4, maxChunkBytes))
        let id = literal(transitionID())
        var subject: [UInt8] = []
        subject += #""subId":"#.utf8
        subject += subIDText
        subject += #","seq":"#.utf8
        subject += String(seq).utf8
        subject.append(UInt8(ascii: ","))
        return pieces.enumerated().map { index, piece in
            chunk(subject: subject, id: id, part: index + 1, total: pieces.count, literal: piece)
        }
    }

    /// One `tinyvex/transitionChunk`: `subject` (a subscription's `"subId":…,"seq":…,`, or
    /// nothing for a whole transition), the transition's id, the piece's place and the piece,
    /// already a JSON string literal.
    static func chunk(subject: [UInt8], id: [UInt8], part: Int, total: Int, literal piece: [UInt8]) -> TransportMessage {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(piece.count + subject.count + id.count + 128)
        bytes += #"{"jsonrpc":"2.0","method":""#.utf8
        bytes += TinyvexMethod.transitionChunk.utf8
        bytes += #"","params":{"#.utf8
        bytes += subject
        bytes += #""transitionId":"#.utf8
        bytes += id
        bytes += #","part":"#.utf8
        bytes += String(part).utf8
        bytes += #","total":"#.utf8
        bytes += String(total).utf8
        bytes += #","chunk":"#.utf8
        bytes += piece
        bytes += "}}".utf8
        return .text(utf8: bytes)
    }

    /// `text` as a JSON string literal (`""` in the impossible case the serializer refuses it).
    static func literal(_ text: String) -> [UInt8] {
        (try? JSONSerializer().serialize(.string(text))) ?? Array(#""""#.utf8)
    }

    /// Splits UTF-8 text into pieces of at most `maxBytes`, never inside a character.
    static func split(_ bytes: [UInt8], maxBytes: Int) -> [ArraySlice<UInt8>] {
        var pieces: [ArraySlice<UInt8>] = []
        var start = 0
        while start < bytes.count {
            var end = bytes.count - start > maxBytes ? start + maxBytes : bytes.count
            // Step back off continuation bytes (10xxxxxx) so a character stays whole.
            while end < bytes.count, end > start + 1, bytes[end] & 0xC0 == 0x80 {
                end -= 1
            }
            pieces.append(bytes[start..<end])
            start = end
        }
        return pieces
    }
}
