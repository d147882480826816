import RpcTransport
import RpcWire
import TinyvexProtocol

extension Wire {
    /// A ``Transition`` as one `tinyvex/transition`, or, when its params' JSON text is longer
    /// than `maxChunkBytes`, as `tinyvex/transitionChunk`s without a `subId` whose pieces join
    /// to that text. Each value's text is written as it is (encoded once for every subscriber).
    static func transition(_ transition: Transition, maxChunkBytes: Int, transitionID: @autoclosure () -> String) -> [TransportMessage] {
        var params: [UInt8] = []
        params.reserveCapacity(transition.changes.reduce(64) { DocumentStore.saturatingAdd($0, $1.value.text.count + 64) })
        params += #"{"version":"#.utf8
        params += String(transition.version).utf8
        params += #","changes":["#.utf8
        for (position, change) in transition.changes.enumerated() {
            if position > 0 { params.append(UInt8(ascii: ",")) }
            params += #"{"subId":"#.utf8
            params += literal(change.subID)
            params += #","seq":"#.utf8
            params += String(change.seq).utf8
            params += #","value":"#.utf8
            params += change.value.text
            params.append(UInt8(ascii: "}"))
        }
        params.append(UInt8(ascii: "]"))
        if !transition.requestIDs.isEmpty {
            params += #","requestIds":["#.utf8
            for (position, requestID) in transition.requestIDs.enumerated() {
                if position > 0 { params.append(UInt8(ascii: ",")) }
                params += literal(requestID)
            }
            params.append(UInt8(ascii: "]"))
        }
        params.append(UInt8(ascii: "}"))
        if params.count <= maxChunkBytes {
            var bytes: [UInt8] = []
            bytes.reserveCapacity(params.count + 64)
            bytes += #"{"jsonrpc":"2.0","method":""#.utf8
            bytes += TinyvexMethod.transition.utf8
            bytes += #"","params":"#.utf8
            bytes += params
            bytes.append(UInt8(ascii: "}"))
            return [.text(utf8: bytes)]
        }
        let pieces = split(params, maxBytes: max(4, maxChunkBytes))
        let id = literal(transitionID())
        return pieces.enumerated().map { index, piece in
            chunk(subject: [], id: id, part: index + 1, total: pieces.count, literal: literal(String(decoding: piece, as: UTF8.self)))
        }
    }
}
