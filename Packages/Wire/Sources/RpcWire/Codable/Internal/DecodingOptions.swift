/// The settings of one decode call, shared by every decoder and container it creates.
final class DecodingOptions {
    let dateStrategy: JSONValueDecoder.DateDecodingStrategy
    let dataStrategy: JSONValueDecoder.DataDecodingStrategy
    let keyStrategy: JSONValueDecoder.KeyDecodingStrategy
    let floatStrategy: JSONValueDecoder.NonConformingFloatDecodingStrategy
    let userInfo: [CodingUserInfoKey: Any]
    /// Whether object keys are matched as they are, which is the common case and skips
    /// conversion.
    let usesDefaultKeys: Bool

    init(_ decoder: JSONValueDecoder) {
        dateStrategy = decoder.dateDecodingStrategy
        dataStrategy = decoder.dataDecodingStrategy
        keyStrategy = decoder.keyDecodingStrategy
        floatStrategy = decoder.nonConformingFloatDecodingStrategy
        var info: [CodingUserInfoKey: Any] = [:]
        info.reserveCapacity(decoder.userInfo.count)
        for (key, value) in decoder.userInfo {
            info[key] = value
        }
        userInfo = info
        if case .useDefaultKeys = decoder.keyDecodingStrategy {
            usesDefaultKeys = true
        } else {
            usesDefaultKeys = false
        }
    }
}
