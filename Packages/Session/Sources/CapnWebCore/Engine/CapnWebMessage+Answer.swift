internal import RpcWire

extension CapnWebMessage {
    /// The export a `resolve` or `reject` answers; `nil` for every other message.
    var answeredExportID: Int64? {
        switch self {
        case .resolve(let id, _), .reject(let id, _): id
        default: nil
        }
    }
}
