/// A server's decision about a WebSocket connection or an HTTP batch, taken before any of its
/// messages is read.
///
/// A refused WebSocket gets the status as the answer to its upgrade request; a refused batch
/// gets it as the answer to its POST. Either way no session starts and no main object is made.
public struct RpcAdmission: Sendable, Hashable {
    /// The refusal status, or `nil` for admitted.
    let refusalStatus: Int?

    /// Admits the request.
    public static let accept = RpcAdmission(refusalStatus: nil)

    /// Refuses the request with an HTTP `status` from 400 to 599 (401, 403, 404, 429, ...);
    /// other values are sent as 403.
    public static func refuse(status: Int) -> RpcAdmission {
        RpcAdmission(refusalStatus: (400 ... 599).contains(status) ? status : 403)
    }
}
