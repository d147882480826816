/// The settings of one ``JSONValueEncoder/encode(_:)`` call, shared by every encoder and
/// container it creates.
final class EncodingOptions {
    let dateStrategy: JSONValueEncoder.DateEncodingStrategy
    let dataStrategy: JSONValueEncoder.DataEncodingStrategy
    let keyStrategy: JSONValueEncoder.KeyEncodingStrategy
    let floatStrategy: JSONValueEncoder.NonConformingFloatEncodingStrategy
    let userInfo: [CodingUserInfoKey: Any]
    /// Whether keys are written as they are, which is the common case and skips conversion.
    let usesDefaultKeys: Bool

    init(_ encoder: JSONValueEncoder) {
        dateStrategy = encoder.dateEncodingStrategy
        dataStrategy = encoder.dataEncodingStrategy
        keyStrategy = encoder.keyEncodingStrategy
        floatStrategy = encoder.nonConformingFloatEncodingStrategy
        if encoder.userInfo.isEmpty {
            userInfo = [:]
        } else {
            var info: [CodingUserInfoKey: Any] = [:]
            for (key, value) in encoder.userInfo {
                info[key] = value
            }
            userInfo = info
        }
        if case .useDefaultKeys = encoder.keyEncodingStrategy {
            usesDefaultKeys = true
        } else {
            usesDefaultKeys = false
        }
    }
}
